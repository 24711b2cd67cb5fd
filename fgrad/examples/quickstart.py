"""Trace a small classifier's loss, print its graph, and run it with the NumPy interpreter.

python -m fgrad.examples.quickstart
"""

import numpy as np

import fgrad as fg


def loss(params, x, labels):
    h = fg.relu(x @ params["w1"] + params["b1"])
    logits = h @ params["w2"] + params["b2"]
    return -fg.mean(fg.sum(fg.log_softmax(logits) * fg.one_hot(labels, 10), axis=-1))


def main() -> None:
    rng = np.random.default_rng(0)
    params = {
        "w1": rng.normal(0, np.sqrt(2 / 784), (784, 64)).astype(np.float32),
        "b1": np.zeros(64, np.float32),
        "w2": rng.normal(0, np.sqrt(2 / 64), (64, 10)).astype(np.float32),
        "b2": np.zeros(10, np.float32),
    }
    x = rng.normal(size=(32, 784)).astype(np.float32)
    labels = rng.integers(0, 10, 32).astype(np.int32)

    graph = fg.trace(loss, params, fg.spec(x.shape), fg.spec(labels.shape, "i32"))
    print(graph)
    print(f"{len(graph.nodes)} nodes; inputs {', '.join(graph.input_names)}")
    print(f"loss = {float(fg.interpret(graph, params, x, labels)):.4f} (chance level: {np.log(10):.4f})")


if __name__ == "__main__":
    main()
