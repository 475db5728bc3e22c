package edapp

// CatalogService covers the v2 catalog: course collections, courses and lessons.
type CatalogService service
