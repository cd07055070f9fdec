"""The fuzz campaign of issue 8 ("a stranger's game file cannot hurt you"), as a package.

    corpus.py     the seed files (games/*.cards, tests/games/*.cards), their words, a workspace
    mutators.py   mutations of bytes, tokens, lines, indentation, numbers, unicode and includes,
                  driven by a Chooser (hypothesis in the suite, a seeded Random in the bench)
    harness.py    runs one mutant through check, play, scenarios, rulebook and diagrams
                  in-process, under a time and memory budget, and classifies what went wrong
    minimize.py   shrinks a failing mutant line by line while its signature stays the same
    found/        reproducers of defects the fuzzer found (regression inputs, xfail while open)

tests/test_fuzz.py is the short run in the suite; bench/fuzz_campaign.py the long one.
"""
