"""The service layer: runs games through the domain and records them in a store."""
