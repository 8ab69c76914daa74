"""Testbeds in the Debian VM of :mod:`subflow_engines.vm`: a real 802.11 association and roam
(:mod:`.wifi_roam`), and the exported examples on real Mininet-WiFi beside ``fluid`` and ``linux``
(:mod:`.mininet_wifi`, ``make mininet-wifi-testbed``)."""
