"""Privacy against utility: word mechanisms (word and document level, empirical privacy, epsilon
guidance), document embeddings (BBC News, leave-one-domain-out) and ADePT."""
