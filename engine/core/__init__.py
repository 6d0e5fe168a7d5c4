"""The compiled core: numba code over numpy arrays, built ahead of time into engine/_compiled*.so.

Nothing here is imported at run time when the compiled module is present (see engine/native.py).
"""
