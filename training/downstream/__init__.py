"""What a pretrained encoder is worth: the linear probe, the full fine-tune, the discriminator's
evaluation against its own generator, and the generator's guesses on everyday sentences."""
