"""Workloads and environments: generators from the papers and real workload logs."""
