"""The defaults and names of the test-errors stage (``metaeval test-errors``; Urbano, Lima & Hanjalic
2019), standard library only: the command line reads them without importing numpy."""

__all__ = ["TESTS", "DEFAULT_ALPHAS", "DEFAULT_DELTAS", "DEFAULT_TOPICS"]

#: the tests, as ``metaeval compare --test`` spells them
TESTS = ("paired-t", "wilcoxon", "sign", "bootstrap", "permutation")
#: the paper's significance levels (``R/common.R``: 1:9 * .001, 1:9 * .01, .1)
DEFAULT_ALPHAS = tuple([round(i * 0.001, 3) for i in range(1, 10)] + [round(i * 0.01, 2) for i in range(1, 10)] + [0.1])
#: the paper's effect sizes (seq(.01, .1, .01))
DEFAULT_DELTAS = tuple(round(i * 0.01, 2) for i in range(1, 11))
#: the paper's topic set sizes
DEFAULT_TOPICS = (25, 50, 100)
