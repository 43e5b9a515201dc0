// Placeholder: implemented by a later commit.
