"""The modules of scripts/bench-charts.py: the runs read (run), SVG drawing (svg), and one
module a chart (resolve, end_to_end, memory)."""
