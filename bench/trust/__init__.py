"""Trust: the realised delta of every sampler, and the trust report (audits, exact samplers)."""
