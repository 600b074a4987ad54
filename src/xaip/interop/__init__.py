"""Bridges to the libraries where planning people already work.

Each bridge is an optional extra, imported only when used: ``xaip.interop.unified_planning``
(the ``xaip[up]`` extra) makes xaip an engine of unified-planning and lets every xaip front
door take a unified-planning ``Problem``.
"""
