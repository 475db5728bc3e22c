package dbschema

import "slices"

// The tables of the schema, each as the step that made it declares it. A
// released step never changes: a later change is a step of its own.

// rawColumn ends the tables that hold service records; runColumn the
// mirrored tables, whose rows a complete fetch deletes when it did not see
// them.
var rawColumn = Column{Name: "raw", Type: JSON, Origin: FromEdApp | FromSafetyCulture, Nullable: true, Description: "The record as the service sent it, unknown fields included; fields the SDK knows as it decodes them (times in UTC)."}

var runColumn = Column{Name: "edapp_run", Type: Int, Origin: FromEngine, Nullable: true, Description: "The export run that last wrote the row: a run that finds it unchanged leaves it as it is. A complete fetch deletes the rows it did not see."}

var progressEventColumns = []Column{
	{Name: "user_id", Type: Text, Field: "userId", Origin: FromEdApp | FromSafetyCulture, Description: "The learner's user id (EdApp's or SafetyCulture's, as source says)."},
	{Name: "user_email", Type: Text, Field: "userEmail", Origin: FromEdApp | FromSafetyCulture, Nullable: true, Description: "The learner's email address."},
	{Name: "user_first_name", Type: Text, Field: "userFirstName", Origin: FromEdApp | FromSafetyCulture, Nullable: true, Description: "The learner's first name."},
	{Name: "user_last_name", Type: Text, Field: "userLastName", Origin: FromEdApp | FromSafetyCulture, Nullable: true, Description: "The learner's last name."},
	{Name: "course_id", Type: Text, Field: "courseId", Origin: FromEdApp | FromSafetyCulture, Nullable: true, Description: "The id of the course (EdApp's or SafetyCulture's, as source says)."},
	{Name: "course_title", Type: Text, Field: "courseTitle", Origin: FromEdApp | FromSafetyCulture, Nullable: true, Description: "The course's title."},
	{Name: "course_external_id", Type: Text, Field: "courseExternalId", Origin: FromEdApp | FromSafetyCulture, Nullable: true, Description: "The course's id in the customer's own systems, when set."},
	{Name: "lesson_id", Type: Text, Field: "lessonId", Origin: FromEdApp | FromSafetyCulture, Description: "The id of the lesson (EdApp's or SafetyCulture's, as source says)."},
	{Name: "lesson_title", Type: Text, Field: "lessonTitle", Origin: FromEdApp | FromSafetyCulture, Nullable: true, Description: "The lesson's title."},
	{Name: "lesson_external_id", Type: Text, Field: "lessonExternalId", Origin: FromEdApp | FromSafetyCulture, Nullable: true, Description: "The lesson's id in the customer's own systems, when set."},
	{Name: "event_name", Type: Text, Field: "eventName", Origin: FromEdApp | FromSafetyCulture, Description: "What happened: the event's name as the service sends it."},
	{Name: "event_date_time", Type: Time, Field: "eventDateTime", Origin: FromEdApp | FromSafetyCulture, Description: "When the event happened."},
	{Name: "lesson_score", Type: Real, Field: "lessonScore", Origin: FromEdApp | FromSafetyCulture, Nullable: true, Unit: "not verified: a percentage, 0-100, in the fake; the service does not document the scale", Description: "The learner's score in the lesson at the event; NULL when the event carries none."},
}

var usersTable = Table{Name: "users", Description: "One row per user of the account.", Key: []string{"id"},
	Indexes: []Index{{Columns: []string{"external_id"}}, {Columns: []string{"edapp_run"}}},
	Columns: []Column{
		{Name: "id", Type: Text, Field: "id", Origin: FromEdApp | FromSafetyCulture, Description: "The user's id (EdApp's or SafetyCulture's, as source says)."},
		{Name: "name", Type: Text, Field: "name", Origin: FromEdApp, Nullable: true, Description: "The user name the user signs in with."},
		{Name: "email", Type: Text, Field: "email", Origin: FromEdApp | FromSafetyCulture, Nullable: true, Description: "The user's email address."},
		{Name: "first_name", Type: Text, Field: "firstName", Origin: FromEdApp | FromSafetyCulture, Nullable: true, Description: "The user's first name."},
		{Name: "last_name", Type: Text, Field: "lastName", Origin: FromEdApp | FromSafetyCulture, Nullable: true, Description: "The user's last name."},
		{Name: "external_id", Type: Text, Field: "externalId", Origin: FromEdApp, Nullable: true, Description: "The user's id in the customer's own systems (externalId), when set."},
		{Name: "time_zone", Type: Text, Field: "timeZone", Origin: FromEdApp, Nullable: true, Description: "The user's time zone, as the service names it (an IANA name)."},
		{Name: "roles", Type: JSON, Field: "roles", Origin: FromEdApp, Nullable: true, Description: "The user's roles, a JSON array of role names."},
		{Name: "user_groups", Type: JSON, Field: "userGroups", Origin: FromEdApp, Nullable: true, Description: "The ids of the groups the user belongs to, a JSON array."},
		{Name: "managed_user_groups", Type: JSON, Field: "managedUserGroups", Origin: FromEdApp, Nullable: true, Description: "The ids of the groups the user manages, a JSON array."},
		{Name: "custom_fields", Type: JSON, Field: "customFields", Origin: FromEdApp, Nullable: true, Description: "The user's custom fields, a JSON object of name to value; also one row each in user_custom_fields."},
		{Name: "last_active_date", Type: Time, Field: "lastActiveDate", Origin: FromEdApp | FromSafetyCulture, Nullable: true, Description: "When the user was last active (SafetyCulture's last_seen_at)."},
		rawColumn,
		runColumn,
	},
}

var userCustomFieldsTable = Table{Name: "user_custom_fields", Description: "One row per user and custom field, from the users' customFields.", Key: []string{"user_id", "name"},
	Indexes: []Index{{Columns: []string{"name"}}, {Columns: []string{"edapp_run"}}},
	Columns: []Column{
		{Name: "user_id", Type: Text, Field: "userId", Origin: FromEdApp, Description: "The user's EdApp id."},
		{Name: "name", Type: Text, Field: "name", Origin: FromEdApp, Description: "The custom field's name."},
		{Name: "value", Type: Text, Field: "value", Origin: FromEdApp, Nullable: true, Description: "The custom field's value for this user."},
		runColumn,
	},
}

var groupsTable = Table{Name: "groups", Description: "One row per user group.", Key: []string{"id"},
	Indexes: []Index{{Columns: []string{"edapp_run"}}},
	Columns: []Column{
		{Name: "id", Type: Text, Field: "id", Origin: FromEdApp | FromSafetyCulture, Description: "The group's id (EdApp's or SafetyCulture's, as source says)."},
		{Name: "name", Type: Text, Field: "name", Origin: FromEdApp | FromSafetyCulture, Nullable: true, Description: "The group's name."},
		{Name: "invite_code", Type: Text, Field: "inviteCode", Origin: FromEdApp, Nullable: true, Description: "The code that lets a learner join the group."},
		{Name: "has_children", Type: Bool, Field: "hasChildren", Origin: FromEdApp, Nullable: true, Description: "Whether the group has groups under it (see group_children)."},
		rawColumn,
		runColumn,
	},
}

var groupMembersTable = Table{Name: "group_members", Description: "One row per user and group the user belongs to, from the users' userGroups.", Key: []string{"group_id", "user_id"},
	Indexes: []Index{{Columns: []string{"user_id"}}, {Columns: []string{"edapp_run"}}},
	Columns: []Column{
		{Name: "group_id", Type: Text, Field: "groupId", Origin: FromEdApp | FromSafetyCulture, Description: "The id of the group (EdApp's or SafetyCulture's, as source says)."},
		{Name: "user_id", Type: Text, Field: "userId", Origin: FromEdApp | FromSafetyCulture, Description: "The id of a user in the group (EdApp's or SafetyCulture's, as source says)."},
		{Name: "user_external_id", Type: Text, Field: "userExternalId", Origin: FromEdApp, Nullable: true, Description: "That user's external id, when set."},
		runColumn,
	},
}

var collectionsTable = Table{Name: "collections", Description: "One row per course collection.", Key: []string{"id"},
	Indexes: []Index{{Columns: []string{"edapp_run"}}},
	Columns: []Column{
		{Name: "id", Type: Text, Field: "id", Origin: FromEdApp | FromSafetyCulture, Description: "The collection's id (EdApp's or SafetyCulture's, as source says)."},
		{Name: "title", Type: Text, Field: "title", Origin: FromEdApp | FromSafetyCulture, Nullable: true, Description: "The collection's title."},
		{Name: "description", Type: Text, Field: "description", Origin: FromEdApp | FromSafetyCulture, Nullable: true, Description: "The collection's description."},
		rawColumn,
		runColumn,
	},
}

var collectionCoursesTable = Table{Name: "collection_courses", Description: "One row per collection and course in it.", Key: []string{"collection_id", "course_id"},
	Indexes: []Index{{Columns: []string{"course_id"}}, {Columns: []string{"edapp_run"}}},
	Columns: []Column{
		{Name: "collection_id", Type: Text, Field: "collectionId", Origin: FromEdApp | FromSafetyCulture, Description: "The id of the collection (EdApp's or SafetyCulture's, as source says)."},
		{Name: "course_id", Type: Text, Field: "courseId", Origin: FromEdApp | FromSafetyCulture, Description: "The id of a course in it (EdApp's or SafetyCulture's, as source says)."},
		runColumn,
	},
}

var coursesTable = Table{Name: "courses", Description: "One row per course.", Key: []string{"id"},
	Indexes: []Index{{Columns: []string{"external_id"}}, {Columns: []string{"edapp_run"}}},
	Columns: []Column{
		{Name: "id", Type: Text, Field: "id", Origin: FromEdApp | FromSafetyCulture, Description: "The course's id (EdApp's or SafetyCulture's, as source says)."},
		{Name: "external_id", Type: Text, Field: "externalId", Origin: FromEdApp | FromSafetyCulture, Nullable: true, Description: "The course's id in the customer's own systems, when set."},
		{Name: "title", Type: Text, Field: "title", Origin: FromEdApp | FromSafetyCulture, Nullable: true, Description: "The course's title."},
		{Name: "description", Type: Text, Field: "description", Origin: FromEdApp | FromSafetyCulture, Nullable: true, Description: "The course's description."},
		{Name: "status", Type: Text, Field: "status", Origin: FromEdApp | FromSafetyCulture, Nullable: true, Description: "The course's publication status, as the service sends it."},
		{Name: "locale", Type: Text, Field: "locale", Origin: FromEdApp | FromSafetyCulture, Nullable: true, Description: "The course's language, as a locale code."},
		{Name: "duration", Type: Int, Field: "duration", Origin: FromEdApp, Nullable: true, Unit: "not verified: the service does not document the unit (an integer)", Description: "The course's duration as the service sends it."},
		{Name: "thumbnail_url", Type: Text, Field: "thumbnailUrl", Origin: FromEdApp | FromSafetyCulture, Nullable: true, Description: "The address of the course's thumbnail image."},
		{Name: "created_date_time", Type: Time, Field: "createdDateTime", Origin: FromEdApp | FromSafetyCulture, Nullable: true, Description: "When the course was created."},
		{Name: "modified_date_time", Type: Time, Field: "modifiedDateTime", Origin: FromEdApp | FromSafetyCulture, Nullable: true, Description: "When the course was last changed."},
		rawColumn,
		runColumn,
	},
}

var lessonsTable = Table{Name: "lessons", Description: "One row per lesson.", Key: []string{"id"},
	Indexes: []Index{{Columns: []string{"course_id"}}, {Columns: []string{"edapp_run"}}},
	Columns: []Column{
		{Name: "id", Type: Text, Field: "id", Origin: FromEdApp | FromSafetyCulture, Description: "The lesson's id (EdApp's or SafetyCulture's, as source says)."},
		{Name: "course_id", Type: Text, Field: "courseId", Origin: FromEdApp | FromSafetyCulture, Nullable: true, Description: "The id of the course the lesson belongs to (EdApp's or SafetyCulture's, as source says)."},
		{Name: "external_id", Type: Text, Field: "externalId", Origin: FromEdApp | FromSafetyCulture, Nullable: true, Description: "The lesson's id in the customer's own systems, when set."},
		{Name: "title", Type: Text, Field: "title", Origin: FromEdApp | FromSafetyCulture, Nullable: true, Description: "The lesson's title."},
		{Name: "description", Type: Text, Field: "description", Origin: FromEdApp | FromSafetyCulture, Nullable: true, Description: "The lesson's description."},
		{Name: "status", Type: Text, Field: "status", Origin: FromEdApp | FromSafetyCulture, Nullable: true, Description: "The lesson's publication status, as the service sends it."},
		{Name: "minimum_score", Type: Real, Field: "minimumScore", Origin: FromEdApp | FromSafetyCulture, Nullable: true, Unit: "on the lesson's score scale (not verified: 0-100 in the fake)", Description: "The score a learner needs to pass the lesson."},
		rawColumn,
		runColumn,
	},
}

var courseStatisticsTable = Table{Name: "course_statistics", Description: "One row per course: how many learners opened and completed it.", Key: []string{"course_id"},
	Indexes: []Index{{Columns: []string{"edapp_run"}}},
	Columns: []Column{
		{Name: "course_id", Type: Text, Field: "courseId", Origin: FromEdApp | FromSafetyCulture, Description: "The id of the course (EdApp's or SafetyCulture's, as source says)."},
		{Name: "total_users", Type: Int, Field: "totalUsers", Origin: FromEdApp | FromSafetyCulture, Nullable: true, Description: "How many learners the course is available to."},
		{Name: "completed_count", Type: Int, Field: "completedCount", Origin: FromEdApp | FromSafetyCulture, Nullable: true, Description: "How many learners completed it."},
		{Name: "opened_count", Type: Int, Field: "openedCount", Origin: FromEdApp | FromSafetyCulture, Nullable: true, Description: "How many learners opened it."},
		rawColumn,
		runColumn,
	},
}

var lessonStatisticsTable = Table{Name: "lesson_statistics", Description: "One row per lesson: how many learners opened and completed it.", Key: []string{"lesson_id"},
	Indexes: []Index{{Columns: []string{"course_id"}}, {Columns: []string{"edapp_run"}}},
	Columns: []Column{
		{Name: "lesson_id", Type: Text, Field: "lessonId", Origin: FromEdApp | FromSafetyCulture, Description: "The id of the lesson (EdApp's or SafetyCulture's, as source says)."},
		{Name: "course_id", Type: Text, Field: "courseId", Origin: FromEdApp | FromSafetyCulture, Nullable: true, Description: "The id of the lesson's course (EdApp's or SafetyCulture's, as source says)."},
		{Name: "lesson_title", Type: Text, Field: "lessonTitle", Origin: FromEdApp | FromSafetyCulture, Nullable: true, Description: "The lesson's title."},
		{Name: "total_users", Type: Int, Field: "totalUsers", Origin: FromEdApp | FromSafetyCulture, Nullable: true, Description: "How many learners the lesson is available to."},
		{Name: "opened_count", Type: Int, Field: "openedCount", Origin: FromEdApp | FromSafetyCulture, Nullable: true, Description: "How many learners opened it."},
		{Name: "completed_count", Type: Int, Field: "completedCount", Origin: FromEdApp | FromSafetyCulture, Nullable: true, Description: "How many learners completed it."},
		rawColumn,
		runColumn,
	},
}

var surveyQuestionsTable = Table{Name: "survey_questions", Description: "One row per survey question.", Key: []string{"id"},
	Indexes: []Index{{Columns: []string{"course_id"}}, {Columns: []string{"lesson_id"}}, {Columns: []string{"edapp_run"}}},
	Columns: []Column{
		{Name: "id", Type: Text, Field: "id", Origin: FromEdApp | FromSafetyCulture, Description: "The question's id (EdApp's or SafetyCulture's, as source says)."},
		{Name: "course_id", Type: Text, Field: "courseId", Origin: FromEdApp | FromSafetyCulture, Nullable: true, Description: "The id of the course (EdApp's or SafetyCulture's, as source says)."},
		{Name: "lesson_id", Type: Text, Field: "lessonId", Origin: FromEdApp | FromSafetyCulture, Nullable: true, Description: "The id of the lesson that asks it (EdApp's or SafetyCulture's, as source says)."},
		{Name: "slide_id", Type: Text, Field: "slideId", Origin: FromEdApp | FromSafetyCulture, Nullable: true, Description: "The id of the slide that holds the question (EdApp's or SafetyCulture's, as source says)."},
		{Name: "question_type", Type: Text, Field: "questionType", Origin: FromEdApp | FromSafetyCulture, Nullable: true, Description: "The kind of question, as the service names it."},
		{Name: "question_content", Type: Text, Field: "questionContent", Origin: FromEdApp | FromSafetyCulture, Nullable: true, Description: "The question's text, as HTML (tags and entities as the author wrote them)."},
		{Name: "answers", Type: JSON, Field: "answers", Origin: FromEdApp | FromSafetyCulture, Nullable: true, Description: "The answers the question offers, a JSON array of {id, content}."},
		rawColumn,
		runColumn,
	},
}

var attemptsTable = Table{Name: "attempts", Description: "One row per lesson attempt.", Key: []string{"id"},
	Indexes: []Index{{Columns: []string{"user_id"}}, {Columns: []string{"course_id"}}, {Columns: []string{"lesson_id"}}, {Columns: []string{"started_date_time"}}},
	Columns: []Column{
		{Name: "id", Type: Text, Field: "id", Origin: FromEdApp | FromSafetyCulture, Description: "The attempt's id (EdApp's or SafetyCulture's, as source says)."},
		{Name: "user_id", Type: Text, Field: "userId", Origin: FromEdApp | FromSafetyCulture, Nullable: true, Description: "The learner's user id (EdApp's or SafetyCulture's, as source says)."},
		{Name: "user_external_id", Type: Text, Field: "userExternalId", Origin: FromEdApp | FromSafetyCulture, Nullable: true, Description: "The learner's id in the customer's own systems (externalId), when set."},
		{Name: "course_id", Type: Text, Field: "courseId", Origin: FromEdApp | FromSafetyCulture, Nullable: true, Description: "The id of the course (EdApp's or SafetyCulture's, as source says)."},
		{Name: "course_external_id", Type: Text, Field: "courseExternalId", Origin: FromEdApp | FromSafetyCulture, Nullable: true, Description: "The course's id in the customer's own systems, when set."},
		{Name: "lesson_id", Type: Text, Field: "lessonId", Origin: FromEdApp | FromSafetyCulture, Nullable: true, Description: "The id of the lesson (EdApp's or SafetyCulture's, as source says)."},
		{Name: "lesson_external_id", Type: Text, Field: "lessonExternalId", Origin: FromEdApp | FromSafetyCulture, Nullable: true, Description: "The lesson's id in the customer's own systems, when set."},
		{Name: "started_date_time", Type: Time, Field: "startedDateTime", Origin: FromEdApp | FromSafetyCulture, Nullable: true, Description: "When the learner started the attempt."},
		{Name: "completed_date_time", Type: Time, Field: "completedDateTime", Origin: FromEdApp | FromSafetyCulture, Nullable: true, Description: "When the learner completed the attempt; NULL while it is open."},
		{Name: "score", Type: Real, Field: "score", Origin: FromEdApp | FromSafetyCulture, Nullable: true, Unit: "not verified: a percentage, 0-100, in the fake; the service does not document the scale", ZeroIsNone: FromSafetyCulture, Description: "The attempt's score, as the service sends it; NULL when none was sent. SafetyCulture sends its scores as proto3 integers, where 0 and no score are the same on the wire, so a SafetyCulture score of 0 is stored NULL; EdApp's scores are stored as sent, 0 included."},
		{Name: "success", Type: Bool, Field: "success", Origin: FromEdApp | FromSafetyCulture, Nullable: true, Description: "Whether the attempt passed the lesson: true when its score reached the lesson's minimum_score (as the fake decides it; not verified against the service)."},
		{Name: "earned_stars", Type: Int, Field: "earnedStars", Origin: FromEdApp | FromSafetyCulture, Nullable: true, Unit: "stars, a count", Description: "The stars the attempt earned."},
		rawColumn,
	},
}

var courseProgressTable = Table{Name: "course_progress", Description: "One row per learner and course: how far the learner is.", Key: []string{"user_id", "course_id"},
	Indexes: []Index{{Columns: []string{"course_id"}}, {Columns: []string{"completed_date_time"}}},
	Columns: []Column{
		{Name: "user_id", Type: Text, Field: "userId", Origin: FromEdApp | FromSafetyCulture, Description: "The learner's user id (EdApp's or SafetyCulture's, as source says)."},
		{Name: "user_external_id", Type: Text, Field: "userExternalId", Origin: FromEdApp | FromSafetyCulture, Nullable: true, Description: "The learner's id in the customer's own systems (externalId), when set."},
		{Name: "user_name", Type: Text, Field: "userName", Origin: FromEdApp, Nullable: true, Description: "The learner's user name."},
		{Name: "user_first_name", Type: Text, Field: "userFirstName", Origin: FromEdApp | FromSafetyCulture, Nullable: true, Description: "The learner's first name."},
		{Name: "user_last_name", Type: Text, Field: "userLastName", Origin: FromEdApp | FromSafetyCulture, Nullable: true, Description: "The learner's last name."},
		{Name: "course_id", Type: Text, Field: "courseId", Origin: FromEdApp | FromSafetyCulture, Description: "The id of the course (EdApp's or SafetyCulture's, as source says)."},
		{Name: "course_external_id", Type: Text, Field: "courseExternalId", Origin: FromEdApp | FromSafetyCulture, Nullable: true, Description: "The course's id in the customer's own systems, when set."},
		{Name: "course_title", Type: Text, Field: "courseTitle", Origin: FromEdApp | FromSafetyCulture, Nullable: true, Description: "The course's title."},
		{Name: "unlocked", Type: Bool, Field: "unlocked", Origin: FromEdApp, Nullable: true, Description: "Whether the course is unlocked for the learner."},
		{Name: "unlocked_date_time", Type: Time, Field: "unlockedDateTime", Origin: FromEdApp, Nullable: true, Description: "When the course was unlocked for the learner."},
		{Name: "opened", Type: Bool, Field: "opened", Origin: FromEdApp | FromSafetyCulture, Nullable: true, Description: "Whether the learner opened the course."},
		{Name: "opened_date_time", Type: Time, Field: "openedDateTime", Origin: FromEdApp | FromSafetyCulture, Nullable: true, Description: "When the learner first opened the course."},
		{Name: "completed", Type: Bool, Field: "completed", Origin: FromEdApp | FromSafetyCulture, Nullable: true, Description: "Whether the learner completed the course."},
		{Name: "completed_date_time", Type: Time, Field: "completedDateTime", Origin: FromEdApp | FromSafetyCulture, Nullable: true, Description: "When the learner completed the course."},
		{Name: "lessons_total", Type: Int, Field: "lessonsTotal", Origin: FromEdApp | FromSafetyCulture, Nullable: true, Description: "How many lessons the course has."},
		{Name: "lessons_unlocked", Type: Int, Field: "lessonsUnlocked", Origin: FromEdApp, Nullable: true, Description: "How many of them are unlocked for the learner."},
		{Name: "lessons_completed", Type: Int, Field: "lessonsCompleted", Origin: FromEdApp | FromSafetyCulture, Nullable: true, Description: "How many of them the learner completed."},
		{Name: "archived", Type: Bool, Field: "archived", Origin: FromEdApp, Nullable: true, Description: "Whether the course is archived for the learner."},
		{Name: "percentage_completed", Type: Real, Field: "percentageCompleted", Origin: FromEdApp | FromSafetyCulture, Nullable: true, Unit: "percent, 0-100 (not verified against the service; the fake sends 0-100)", Description: "The share of the course's lessons the learner completed."},
		{Name: "score", Type: Real, Field: "score", Origin: FromEdApp | FromSafetyCulture, Nullable: true, Unit: "not verified: a percentage, 0-100, in the fake; the service does not document the scale", ZeroIsNone: FromSafetyCulture, Description: "The learner's score in the course; NULL when none was sent. SafetyCulture sends its scores as proto3 integers, where 0 and no score are the same on the wire, so a SafetyCulture score of 0 is stored NULL; EdApp's scores are stored as sent, 0 included."},
		rawColumn,
	},
}

var lessonProgressEventsTable = Table{Name: "lesson_progress_events", Description: "One row per lesson progress event (the records carry no id).", Key: []string{"user_id", "lesson_id", "event_name", "event_date_time"},
	Indexes: []Index{{Columns: []string{"course_id"}}, {Columns: []string{"lesson_id"}}, {Columns: []string{"event_date_time"}}},
	Columns: slices.Concat(progressEventColumns, []Column{rawColumn}),
}

var surveyAnswersTable = Table{Name: "survey_answers", Description: "One row per survey answer.", Key: []string{"id"},
	Indexes: []Index{{Columns: []string{"user_id"}}, {Columns: []string{"course_id"}}, {Columns: []string{"lesson_id"}}, {Columns: []string{"answered_date_time"}}},
	Columns: []Column{
		{Name: "id", Type: Text, Field: "id", Origin: FromEdApp | FromSafetyCulture, Description: "The answer's id (EdApp's or SafetyCulture's, as source says)."},
		{Name: "course_id", Type: Text, Field: "courseId", Origin: FromEdApp | FromSafetyCulture, Nullable: true, Description: "The id of the course (EdApp's or SafetyCulture's, as source says)."},
		{Name: "course_external_id", Type: Text, Field: "courseExternalId", Origin: FromEdApp | FromSafetyCulture, Nullable: true, Description: "The course's id in the customer's own systems, when set."},
		{Name: "lesson_id", Type: Text, Field: "lessonId", Origin: FromEdApp | FromSafetyCulture, Nullable: true, Description: "The id of the lesson (EdApp's or SafetyCulture's, as source says)."},
		{Name: "lesson_external_id", Type: Text, Field: "lessonExternalId", Origin: FromEdApp | FromSafetyCulture, Nullable: true, Description: "The lesson's id in the customer's own systems, when set."},
		{Name: "slide_id", Type: Text, Field: "slideId", Origin: FromEdApp | FromSafetyCulture, Nullable: true, Description: "The id of the slide that holds the question (EdApp's or SafetyCulture's, as source says)."},
		{Name: "user_id", Type: Text, Field: "userId", Origin: FromEdApp | FromSafetyCulture, Nullable: true, Description: "The id of the learner who answered (EdApp's or SafetyCulture's, as source says)."},
		{Name: "user_external_id", Type: Text, Field: "userExternalId", Origin: FromEdApp | FromSafetyCulture, Nullable: true, Description: "The learner's id in the customer's own systems (externalId), when set."},
		{Name: "attempt_id", Type: Text, Field: "attemptId", Origin: FromEdApp | FromSafetyCulture, Nullable: true, Description: "The id of the attempt the answer belongs to (EdApp's or SafetyCulture's, as source says)."},
		{Name: "question_id", Type: Text, Field: "questionId", Origin: FromEdApp | FromSafetyCulture, Nullable: true, Description: "The id of the question answered, a survey_questions id (EdApp's or SafetyCulture's, as source says)."},
		{Name: "question_content", Type: Text, Field: "questionContent", Origin: FromEdApp | FromSafetyCulture, Nullable: true, Description: "The question's text, as HTML (tags and entities as the author wrote them)."},
		{Name: "answer_definition_id", Type: Text, Field: "answerDefinitionId", Origin: FromEdApp | FromSafetyCulture, Nullable: true, Description: "The offered answer chosen (an id in survey_questions.answers), when the question offers answers."},
		{Name: "answer_content", Type: Text, Field: "answerContent", Origin: FromEdApp | FromSafetyCulture, Nullable: true, Description: "The answer's text, as the learner gave it or the offered answer's content."},
		{Name: "answered_date_time", Type: Time, Field: "answeredDateTime", Origin: FromEdApp | FromSafetyCulture, Nullable: true, Description: "When the learner answered."},
		rawColumn,
	},
}

var userLessonProgressTable = Table{Name: "user_lesson_progress", Description: "One row per learner and lesson (--per-user).", Key: []string{"user_id", "lesson_id"},
	Indexes: []Index{{Columns: []string{"course_id"}}, {Columns: []string{"lesson_id"}}, {Columns: []string{"edapp_run"}}},
	Columns: []Column{
		{Name: "user_id", Type: Text, Field: "userId", Origin: FromEdApp | FromSafetyCulture, Description: "The learner's user id (EdApp's or SafetyCulture's, as source says)."},
		{Name: "course_id", Type: Text, Field: "courseId", Origin: FromEdApp | FromSafetyCulture, Nullable: true, Description: "The id of the course (EdApp's or SafetyCulture's, as source says)."},
		{Name: "lesson_id", Type: Text, Field: "lessonId", Origin: FromEdApp | FromSafetyCulture, Description: "The id of the lesson (EdApp's or SafetyCulture's, as source says)."},
		{Name: "lesson_title", Type: Text, Field: "lessonTitle", Origin: FromEdApp | FromSafetyCulture, Nullable: true, Description: "The lesson's title."},
		{Name: "opened", Type: Bool, Field: "opened", Origin: FromEdApp | FromSafetyCulture, Nullable: true, Description: "Whether the learner opened the lesson."},
		{Name: "opened_date_time", Type: Time, Field: "openedDateTime", Origin: FromEdApp | FromSafetyCulture, Nullable: true, Description: "When the learner first opened the lesson."},
		{Name: "completed", Type: Bool, Field: "completed", Origin: FromEdApp | FromSafetyCulture, Nullable: true, Description: "Whether the learner completed the lesson."},
		{Name: "completed_date_time", Type: Time, Field: "completedDateTime", Origin: FromEdApp | FromSafetyCulture, Nullable: true, Description: "When the learner completed the lesson."},
		{Name: "score", Type: Real, Field: "score", Origin: FromEdApp | FromSafetyCulture, Nullable: true, Unit: "not verified: a percentage, 0-100, in the fake; the service does not document the scale", Description: "The learner's score in the lesson."},
		{Name: "attempts", Type: Int, Field: "attempts", Origin: FromEdApp | FromSafetyCulture, Nullable: true, Description: "How many attempts the learner made at the lesson."},
		rawColumn,
		runColumn,
	},
}

var userLessonProgressEventsTable = Table{Name: "user_lesson_progress_events", Description: "One row per learner's lesson progress event (--per-user).", Key: []string{"user_id", "lesson_id", "event_name", "event_date_time"},
	Indexes: []Index{{Columns: []string{"course_id"}}, {Columns: []string{"lesson_id"}}, {Columns: []string{"event_date_time"}}},
	Columns: slices.Concat(progressEventColumns, []Column{rawColumn}),
}

var groupChildrenTable = Table{Name: "group_children", Description: "One row per group and group directly under it.", Key: []string{"parent_id", "child_id"},
	Indexes: []Index{{Columns: []string{"child_id"}}, {Columns: []string{"edapp_run"}}},
	Columns: []Column{
		{Name: "parent_id", Type: Text, Field: "parentId", Origin: FromEdApp, Description: "The EdApp id of the parent group."},
		{Name: "child_id", Type: Text, Field: "childId", Origin: FromEdApp, Description: "The EdApp id of a group directly under it."},
		runColumn,
	},
}

var edappExportKindsTable = Table{Name: "edapp_export_kinds", Description: "The export's own: where each kind's fetch stands.", Key: []string{"kind"},
	Columns: []Column{
		{Name: "kind", Type: Text, Origin: FromEngine, Description: "The kind (and table) this row is about."},
		{Name: "cursor", Type: Time, Origin: FromEngine, Nullable: true, Description: "Where the next incremental fetch starts, less the overlap: the start of the last complete fetch, by the service's clock."},
		{Name: "walk_run", Type: Int, Origin: FromEngine, Nullable: true, Description: "The run of the walk in progress; NULL when none is."},
		{Name: "walk_from", Type: Time, Origin: FromEngine, Nullable: true, Description: "The date the walk in progress fetches from."},
		{Name: "walk_started", Type: Time, Origin: FromEngine, Nullable: true, Description: "When the walk in progress fetched its first page, by the service's clock."},
		{Name: "walk_pages", Type: Int, Origin: FromEngine, Nullable: true, Description: "How many pages of the walk in progress are committed."},
		{Name: "completed_at", Type: Time, Origin: FromEngine, Nullable: true, Description: "When the kind's last complete fetch ended."},
	},
}

var edappExportLockTable = Table{Name: "edapp_export_lock", Description: "The export's own: who holds the database.", Key: []string{"id"},
	Columns: []Column{
		{Name: "id", Type: Int, Origin: FromEngine, Description: "Always 1: the table has one row."},
		{Name: "holder", Type: Text, Origin: FromEngine, Nullable: true, Description: "Who holds the database (\"pid N on HOST\"); NULL when no export does."},
		{Name: "pid", Type: Int, Origin: FromEngine, Nullable: true, Description: "The process id of the holder."},
		{Name: "host", Type: Text, Origin: FromEngine, Nullable: true, Description: "The host name of the holder."},
		{Name: "heartbeat_at", Type: Time, Origin: FromEngine, Nullable: true, Description: "When the holder last committed a page (SQLite)."},
		{Name: "runs", Type: Int, Origin: FromEngine, Nullable: true, Description: "How many export runs the database has seen; numbers the runs."},
	},
}

var edappExportBudgetTable = Table{Name: "edapp_export_budget", Description: "The export's own: what the last export spent of the request budget.", Key: []string{"id"},
	Columns: []Column{
		{Name: "id", Type: Int, Origin: FromEngine, Description: "Always 1: the table has one row."},
		{Name: "admissions", Type: JSON, Origin: FromEngine, Nullable: true, Description: "The start times of the last export's requests in the budget's window when it saved them, a JSON array."},
		{Name: "saved_at", Type: Time, Origin: FromEngine, Nullable: true, Description: "When the last export saved them."},
	},
}

var eventsTable = Table{Name: "events", Description: "The webhook inbox: one row per distinct event.", Key: []string{"event_key"},
	Indexes: []Index{{Columns: []string{"user_id"}}, {Columns: []string{"course_id"}}, {Columns: []string{"event_time"}}},
	Columns: []Column{
		{Name: "event_key", Type: Text, Origin: FromEngine, Description: "The event's identity (edapp.EventKey): a redelivery has the same key and is stored once."},
		{Name: "event_name", Type: Text, Field: "eventName", Origin: FromEdApp, Nullable: true, Description: "The event's name (eventName), one of the ten webhook events."},
		{Name: "received_at", Type: Time, Origin: FromEngine, Nullable: true, Description: "When the inbox received the first delivery of the event."},
		{Name: "event_time", Type: Time, Field: "timestamp", Origin: FromEdApp, Nullable: true, Description: "When the event happened, from its timestamp."},
		{Name: "user_id", Type: Text, Field: "userId", Origin: FromEdApp, Nullable: true, Description: "The learner's EdApp user id."},
		{Name: "user_external_id", Type: Text, Field: "userExternalId", Origin: FromEdApp, Nullable: true, Description: "The learner's id in the customer's own systems (externalId), when set."},
		{Name: "user_name", Type: Text, Field: "username", Origin: FromEdApp, Nullable: true, Description: "The learner's user name (username or userName)."},
		{Name: "email", Type: Text, Field: "email", Origin: FromEdApp, Nullable: true, Description: "The learner's email address."},
		{Name: "first_name", Type: Text, Field: "firstname", Origin: FromEdApp, Nullable: true, Description: "The learner's first name."},
		{Name: "last_name", Type: Text, Field: "lastname", Origin: FromEdApp, Nullable: true, Description: "The learner's last name."},
		{Name: "course_id", Type: Text, Field: "courseId", Origin: FromEdApp, Nullable: true, Description: "The EdApp id of the course."},
		{Name: "course_title", Type: Text, Field: "courseTitle", Origin: FromEdApp, Nullable: true, Description: "The course's title."},
		{Name: "course_link", Type: Text, Field: "courseLink", Origin: FromEdApp, Nullable: true, Description: "A link to the course, as the event sends it."},
		{Name: "lesson_id", Type: Text, Field: "lessonId", Origin: FromEdApp, Nullable: true, Description: "The EdApp id of the lesson."},
		{Name: "lesson_title", Type: Text, Field: "lessonTitle", Origin: FromEdApp, Nullable: true, Description: "The lesson's title."},
		{Name: "score", Type: Real, Field: "score", Origin: FromEdApp, Nullable: true, Unit: "not verified: a percentage, 0-100, in the fake; the service does not document the scale", Description: "The learner's score (LessonCompletedEvent); NULL when the event has none."},
		{Name: "quiz_id", Type: Text, Field: "quizId", Origin: FromEdApp, Nullable: true, Description: "The EdApp id of the Rapid Refresh quiz."},
		{Name: "quiz_title", Type: Text, Field: "quizTitle", Origin: FromEdApp, Nullable: true, Description: "The quiz's title."},
		{Name: "quiz_session", Type: Text, Field: "quizSession", Origin: FromEdApp, Nullable: true, Description: "The quiz session, as the event names it."},
		{Name: "quiz_link", Type: Text, Field: "quizLink", Origin: FromEdApp, Nullable: true, Description: "A link to the quiz, as the event sends it."},
		{Name: "due_date", Type: Time, Field: "dueDate", Origin: FromEdApp, Nullable: true, Description: "When the course is due (CourseReminderWebHookEvent)."},
		{Name: "raw", Type: JSON, Origin: FromEdApp, Nullable: true, Description: "The delivery's body as received."},
	},
}

var rejectsTable = Table{Name: "rejects", Description: "One row per record a database refused for good, kept instead of blocking its kind.", Key: []string{"id"},
	Columns: []Column{
		{Name: "id", Type: Serial, Origin: FromEngine, Description: "The reject's number, in the order rejected."},
		{Name: "source", Type: Text, Origin: FromEngine, Description: "The service the record came from: edapp or safetyculture."},
		{Name: "kind", Type: Text, Origin: FromEngine, Description: "The kind of record: the table it was for (events for a webhook delivery)."},
		{Name: "identity", Type: Text, Origin: FromEngine, Nullable: true, Description: "The record's identity, its key columns' values joined by ' / '; NULL when it has none usable."},
		{Name: "reason", Type: Text, Origin: FromEngine, Description: "Why it was refused: the database's message or the rule it broke."},
		{Name: "raw", Type: JSON, Origin: FromEngine, Nullable: true, Description: "The record or delivery as the service sent it."},
		{Name: "run", Type: Int, Origin: FromEngine, Nullable: true, Description: "The export run that met it; NULL for a webhook delivery."},
		{Name: "rejected_at", Type: Time, Origin: FromEngine, Description: "When it was refused."},
	},
}
