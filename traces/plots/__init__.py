"""Plots of m2vp run outputs (used by traces/plot.py, `./m2vp plot`).

readers: the run-output file formats; runs: which files a run folder has;
figure: matplotlib set-up and saving; netpipe, breakdown, cdf: one kind of
figure each; variants: a sweep's overlay plot (traces/sweep.py).
"""
