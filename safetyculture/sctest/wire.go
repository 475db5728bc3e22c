package sctest

import "time"

// The fake's own wire types, in the shapes SAFETYCULTURE-FACTS records:
// the catalogue and analytics in camelCase, the feeds in snake_case.

const wireTimeLayout = "2006-01-02T15:04:05.000Z"

// wt writes a time as the service does, "" when unset (the feeds' way).
func wt(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(wireTimeLayout)
}

// wtp writes a time, null when unset (the camelCase endpoints' way).
func wtp(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := wt(t)
	return &s
}

type wireList[T any] struct {
	TotalCount int `json:"totalCount"`
	Items      []T `json:"items"`
}

type wireCourse struct {
	ID                        string        `json:"id"`
	ExternalID                string        `json:"externalId"`
	Title                     string        `json:"title"`
	Description               string        `json:"description"`
	Status                    string        `json:"status"`
	Locale                    string        `json:"locale"`
	IsMandatory               bool          `json:"isMandatory"`
	DueBy                     *string       `json:"dueBy"`
	Duration                  int           `json:"duration"`
	ThumbnailURL              string        `json:"thumbnailUrl"`
	CreatedDatetime           *string       `json:"createdDatetime"`
	ModifiedDatetime          *string       `json:"modifiedDatetime"`
	TranslationOriginalCourse wireCourseRef `json:"TranslationOriginalCourse"`
	LogoURL                   string        `json:"logoUrl"`
	BrandingImageURL          string        `json:"brandingImageUrl"`
	IsPublished               bool          `json:"isPublished"`
	LessonCount               int           `json:"LessonCount"` // capitalised, as the live service was seen to send it
	PublishedVersionNumber    int           `json:"publishedVersionNumber"`
}

type wireCourseRef struct {
	ID         string `json:"id"`
	ExternalID string `json:"externalId"`
}

type wireLesson struct {
	ID           string `json:"id"`
	CourseID     string `json:"courseId"`
	ExternalID   string `json:"externalId"`
	Title        string `json:"title"`
	Description  string `json:"description"`
	Status       string `json:"status"`
	MinimumScore int    `json:"minimumScore"`
}

type wireCollection struct {
	ID          string `json:"id"`
	Title       string `json:"title"`
	Description string `json:"description"`
	CourseCount int    `json:"courseCount"`
}

type wirePath struct {
	ID          string          `json:"id"`
	Title       string          `json:"title"`
	Description string          `json:"description"`
	IsPublished bool            `json:"isPublished"`
	Courses     []wireCourseRef `json:"courses"`
}

type wireRapidRefresh struct {
	ID          string `json:"id"`
	Title       string `json:"title"`
	CourseID    string `json:"courseId"`
	IsPublished bool   `json:"isPublished"`
}

type wireLeaderboard struct {
	ID            string  `json:"id"`
	Name          string  `json:"name"`
	StartDate     *string `json:"startDate"`
	EndDate       *string `json:"endDate"`
	LearnerAccess string  `json:"learnerAccess"`
}

type wireRankings struct {
	LeaderboardID   string        `json:"leaderboardId"`
	LeaderboardName string        `json:"leaderboardName"`
	Rankings        []wireRanking `json:"rankings"`
}

type wireRanking struct {
	Rank            int    `json:"rank"`
	ParticipantID   string `json:"participantId"`
	ParticipantName string `json:"participantName"`
	TotalScore      int    `json:"totalScore"`
	IsNotAttempted  bool   `json:"isNotAttempted"`
}

// Feeds.

type wireFeed[T any] struct {
	Metadata wireFeedMetadata `json:"metadata"`
	Data     []T              `json:"data"`
}

type wireFeedMetadata struct {
	NextPage         *string `json:"next_page"`
	RemainingRecords *int    `json:"remaining_records,omitempty"`
	NextPageToken    *string `json:"next_page_token,omitempty"`
}

type wireUser struct {
	ID             string  `json:"id"`
	OrganisationID string  `json:"organisation_id"`
	Email          string  `json:"email"`
	Firstname      string  `json:"firstname"`
	Lastname       string  `json:"lastname"`
	Active         bool    `json:"active"`
	LastSeenAt     *string `json:"last_seen_at"`
	SeatType       string  `json:"seat_type"`
	CreatedAt      *string `json:"created_at"`
}

type wireGroup struct {
	ID             string `json:"id"`
	Name           string `json:"name"`
	OrganisationID string `json:"organisation_id"`
}

type wireGroupUser struct {
	UserID         string `json:"user_id"`
	GroupID        string `json:"group_id"`
	OrganisationID string `json:"organisation_id"`
}

type wireSite struct {
	ID             string  `json:"id"`
	Name           string  `json:"name"`
	CreatorID      string  `json:"creator_id"`
	OrganisationID string  `json:"organisation_id"`
	Deleted        bool    `json:"deleted"`
	SiteUUID       string  `json:"site_uuid"`
	MetaLabel      string  `json:"meta_label"`
	ParentID       *string `json:"parent_id"`
}

type wireSiteMember struct {
	SiteID   string `json:"site_id"`
	MemberID string `json:"member_id"`
}

// wireProgress is a course-progress row as the vendor exporter decodes it.
type wireProgress struct {
	OpenedAt         string  `json:"opened_at"`
	CompletedAt      string  `json:"completed_at"`
	TotalLessons     int     `json:"total_lessons"`
	CompletedLessons int     `json:"completed_lessons"`
	CourseID         string  `json:"course_id"`
	CourseExternalID string  `json:"course_external_id"`
	CourseTitle      string  `json:"course_title"`
	UserEmail        string  `json:"user_email"`
	UserFirstName    string  `json:"user_first_name"`
	UserLastName     string  `json:"user_last_name"`
	UserID           string  `json:"user_id"`
	UserExternalID   string  `json:"user_external_id"`
	ProgressPercent  float64 `json:"progress_percent"`
	Score            int     `json:"score"`
	DueAt            string  `json:"due_at"`
}

// wireProgressCamel is the same row as a third-party client reads it.
type wireProgressCamel struct {
	OpenedAt         string  `json:"openedAt"`
	CompletedAt      string  `json:"completedAt"`
	TotalLessons     int     `json:"totalLessons"`
	CompletedLessons int     `json:"completedLessons"`
	CourseID         string  `json:"courseId"`
	CourseExternalID string  `json:"courseExternalId"`
	CourseTitle      string  `json:"courseTitle"`
	UserEmail        string  `json:"userEmail"`
	UserFirstName    string  `json:"userFirstName"`
	UserLastName     string  `json:"userLastName"`
	UserID           string  `json:"userId"`
	UserExternalID   string  `json:"userExternalId"`
	ProgressPercent  float64 `json:"progressPercent"`
	Score            int     `json:"score"`
	DueAt            string  `json:"dueAt"`
}

func (p wireProgress) camel() wireProgressCamel { return wireProgressCamel(p) }

type wireWhoAmI struct {
	UserID         string `json:"user_id"`
	OrganisationID string `json:"organisation_id"`
	Firstname      string `json:"firstname"`
	Lastname       string `json:"lastname"`
}
