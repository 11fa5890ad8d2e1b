"""Wayfarer, the hermetic hotel and flight booking site (`travel.test`)."""
