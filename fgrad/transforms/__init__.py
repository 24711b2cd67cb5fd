"""Transforms: functions from graphs to graphs (and from functions to functions), each an
interpreter of the graph that looks up its rule per primitive in a table of its own."""
