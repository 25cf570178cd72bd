"""`scriptorium purge`: take a secret that got in before redaction out of everything (`purge.py`).

Above memory/ and sessions/ (it rewrites both under their locks); the redactor it keys
its placeholders like (`core/redact/`) sits below them.
"""
