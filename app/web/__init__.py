"""The instructor web app: server-rendered pages over the same services as the API."""
