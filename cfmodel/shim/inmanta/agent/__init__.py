"""``inmanta.agent``: deploy-time only; its modules import so that module code loads."""
