"""The subcommands of ``edgedp-export``, one thin module each; the builds live beside them."""
