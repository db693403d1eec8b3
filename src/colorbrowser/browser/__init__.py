"""Browser environment: launch, observe (axtree with bids, Set-of-Marks), act."""
