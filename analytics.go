package edapp

// AnalyticsService covers the v2 analytics operations (/v2/analytics/...).
type AnalyticsService service
