"""Rerankers: the stage after retrieval that scores each retrieved passage against the query and reorders them."""
