"""Search for better prompts: seeded splits, proposed instruction rewrites, successive halving on validation
minibatches, and a held-out confirmation of the choice (see docs/optimize.md)."""
