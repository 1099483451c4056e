"""ADePT: sentence rewriting through a clipped, noised autoencoder latent (pack, model, decoding)."""
