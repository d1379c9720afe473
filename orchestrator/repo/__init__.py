"""Reading the source repository: the safe walker and the repository map."""
