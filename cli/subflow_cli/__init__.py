"""The ``subflow`` command line."""
