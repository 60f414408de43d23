"""Training-time code: block labels from ground truth, model fitting and export.

Nothing here is imported at inference; the shipped models are plain data
files read by ``scrapy_declutter.steps`` without scikit-learn.
"""
