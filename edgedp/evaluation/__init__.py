"""Tools that measure mechanisms and release nothing: the auditor, empirical privacy, calibration."""
