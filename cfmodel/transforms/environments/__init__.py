"""Environments (`environments.cfenv`) and the request sequence.

facts → environment → injector → compile target.
"""
