"""Evaluation on WCXB-format datasets: the metric, the dataset reader, peers and the runner."""
