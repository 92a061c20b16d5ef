"""How far an LLM judge agrees with people, and what people's ratings make of a judge's scores: agreement (Spearman,
Cohen's kappa, with intervals), the rated sample, and the judge-only, people-only and prediction-powered estimates.
The judges themselves are in playground.evaluation.judges."""
