"""The learned block classifier: features, a NumPy tree-ensemble evaluator and its model file.

Inference needs only NumPy: the model is a data file of tree arrays trained
offline (``scrapy-declutter train-model``, code in ``scrapy_declutter.lab.training``).
"""
