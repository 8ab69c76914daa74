"""Subflow domain library, shared by every Subflow service.

Subpackages, lowest layer first; a module imports only from its own package and the layers
below it (``tests/unit/project/test_import_graph.py`` checks this):

=============== ==========================================================================
``errors``      every domain error, in one hierarchy (a module)
``compiled``    numba's decorators for every compiled loop (a module)
``scenario``    the scenario document and its geography (local frame, geodesics)
``space``       trajectories of every mobility model, range crossings, satellite orbits
``radio``       propagation, 802.11 error rates and MCS, airtime, association, coverage
``results``     the result document and its summaries; planned next to measured
``planning``    the array graph, routes, k shortest paths, FDM, MPTCP path selection
``runplan``     the run plan: strategies, path policies, controller, resolution
``comparison``  comparisons of strategies, sweeps, connectivity checks
``analysis``    capacity targets, link and node failures
``io``          topology imports, Mininet-WiFi/ns-2 exports, GPX/AIS/NMEA tracks
``service``     the agent's HTTP documents, request limits, logs, secrets
=============== ==========================================================================
"""

__version__ = "0.1.0"

#: the subpackages and modules of the library, lowest layer first
LAYERS = ("errors", "compiled", "scenario", "space", "radio", "results", "planning", "runplan",
          "comparison", "analysis", "io", "service")

__all__ = ["LAYERS", "__version__"]
