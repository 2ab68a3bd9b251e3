"""Test support shared by the tests and the benchmarks: servers and workers under fault
injection, free ports, process trees, synthetic submissions."""
