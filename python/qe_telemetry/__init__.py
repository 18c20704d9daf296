"""qe-telemetry's Python side: the Sphinx extension (qe_telemetry.sphinx, the
{exec-time} roles and the execution status file) and the forms its roles
print (qe_telemetry.records).  The records are read and the status document
written by the C tool qe-exec-status.  Standard library only; Sphinx for the
extension."""

# Equal to QE_VERSION in lib/qe.h (tests/sphinx.bats checks).
__version__ = "0.1.0"
