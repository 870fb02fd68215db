"""The servers: manifests discovered under servers/, selection by name, and builds."""
