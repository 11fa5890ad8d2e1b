"""Threadline, the hermetic Q&A community (`forum.test`)."""
