"""Inspection reports: see every block's label, score, deciding step and features.

``render_report(result)`` returns one self-contained HTML page: per-block
charts like the Dragnet seed's, the blocks in page order tinted by label, the
clean text as exported and the counts. (A Result is data and renders nothing
itself: the report depends on the Result, never the other way.)
``render_index`` links several reports; ``save_report`` writes one to a folder.

* ``document`` — the report and the index page;
* ``charts`` — the per-block bar charts, inline SVG;
* ``files`` — safe file names, the URL-hashed sample, writing to disk.
"""

from .document import IndexEntry, render_index, render_report
from .files import ReportSampler, report_name, safe_name, sampled, save_report

__all__ = [
    "IndexEntry",
    "ReportSampler",
    "render_index",
    "render_report",
    "report_name",
    "safe_name",
    "sampled",
    "save_report",
]
