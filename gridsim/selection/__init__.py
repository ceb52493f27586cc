"""Resource selection: window search, slot subset allocation and the criteria registry."""
