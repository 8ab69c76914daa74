"""REST API routers (``/api``)."""
