"""Speed and memory: latency, per-call latency, peak RSS, pack loading, install footprint, index
choice, the sampling mechanisms' and DeepCandidate's costs, and corpus scale on Spark and Dask."""
