"""The mathematics of privacy on the machine: what every mechanism stands on.

* :mod:`~edgedp.privacy.validation`: checks of privacy parameters and arguments (typed errors).
* :mod:`~edgedp.privacy.randomness`: the one source of randomness (OS entropy; loud seeds) and the
  exact samplers (geometric, discrete Laplace and Gaussian, unbounded exponential, Gumbel).
* :mod:`~edgedp.privacy.noise`: each epsilon -> noise-parameter conversion, rounded toward privacy.
* :mod:`~edgedp.privacy.realised_distributions`: the realised law of the samplers, computed over
  bit patterns.
* :mod:`~edgedp.privacy.guarantee`: guarantees and DP events as data.
* :mod:`~edgedp.privacy.mechanism`: the one ``Mechanism`` base class.
* :mod:`~edgedp.privacy.ledger`: the persistent privacy ledger of events per scope.

Who may import it: everyone. It imports nothing of edgedp but :mod:`edgedp.errors`: no packs, no
text, no mechanism. It changes rarely and only with a proof.
"""
