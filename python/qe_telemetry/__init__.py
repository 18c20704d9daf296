"""qe-telemetry's Python side: the Sphinx extension (qe_telemetry.sphinx, the
{exec-time} roles and the execution status file).  The records are read, the
roles' printed forms made and the status document written by the C tool
qe-exec-status.  Standard library only; Sphinx for the extension."""

# Equal to QE_VERSION in lib/qe.h (tests/sphinx.bats checks).
__version__ = "0.1.0"
