"""qe-telemetry's Python side: the Sphinx extension (qe_telemetry.sphinx, the
{exec-time} roles and the execution status file) and qe_telemetry.status (the
status document from qe-cache-extract / qe-stamp records, also the command
qe-exec-status).  Standard library only; Sphinx for the extension."""

# Equal to QE_VERSION in lib/qe.h (tests/sphinx.bats checks).
__version__ = "0.1.0"
