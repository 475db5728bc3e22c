package edapp

// WebhooksService covers the v2 webhook operations (/v2/webhooks).
type WebhooksService service
