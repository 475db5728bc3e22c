DROP INDEX IF EXISTS users_history_source_valid_from_idx;

CREATE INDEX users_history_valid_from_source_idx ON users_history (valid_from, source);

DROP INDEX IF EXISTS user_custom_fields_history_source_valid_from_idx;

CREATE INDEX user_custom_fields_history_valid_from_source_idx ON user_custom_fields_history (valid_from, source);

DROP INDEX IF EXISTS groups_history_source_valid_from_idx;

CREATE INDEX groups_history_valid_from_source_idx ON groups_history (valid_from, source);

DROP INDEX IF EXISTS group_members_history_source_valid_from_idx;

CREATE INDEX group_members_history_valid_from_source_idx ON group_members_history (valid_from, source);

DROP INDEX IF EXISTS group_children_history_source_valid_from_idx;

CREATE INDEX group_children_history_valid_from_source_idx ON group_children_history (valid_from, source);

DROP INDEX IF EXISTS collections_history_source_valid_from_idx;

CREATE INDEX collections_history_valid_from_source_idx ON collections_history (valid_from, source);

DROP INDEX IF EXISTS collection_courses_history_source_valid_from_idx;

CREATE INDEX collection_courses_history_valid_from_source_idx ON collection_courses_history (valid_from, source);

DROP INDEX IF EXISTS courses_history_source_valid_from_idx;

CREATE INDEX courses_history_valid_from_source_idx ON courses_history (valid_from, source);

DROP INDEX IF EXISTS lessons_history_source_valid_from_idx;

CREATE INDEX lessons_history_valid_from_source_idx ON lessons_history (valid_from, source);

DROP INDEX IF EXISTS survey_questions_history_source_valid_from_idx;

CREATE INDEX survey_questions_history_valid_from_source_idx ON survey_questions_history (valid_from, source);

DROP INDEX IF EXISTS learning_paths_history_source_valid_from_idx;

CREATE INDEX learning_paths_history_valid_from_source_idx ON learning_paths_history (valid_from, source);

DROP INDEX IF EXISTS sites_history_source_valid_from_idx;

CREATE INDEX sites_history_valid_from_source_idx ON sites_history (valid_from, source);

DROP INDEX IF EXISTS site_members_history_source_valid_from_idx;

CREATE INDEX site_members_history_valid_from_source_idx ON site_members_history (valid_from, source);

DROP INDEX IF EXISTS rapid_refresh_answers_history_source_valid_from_idx;

CREATE INDEX rapid_refresh_answers_history_valid_from_source_idx ON rapid_refresh_answers_history (valid_from, source);

DROP INDEX IF EXISTS user_lesson_progress_history_source_valid_from_idx;

CREATE INDEX user_lesson_progress_history_valid_from_source_idx ON user_lesson_progress_history (valid_from, source);

DROP INDEX IF EXISTS user_slide_statistics_history_source_valid_from_idx;

CREATE INDEX user_slide_statistics_history_valid_from_source_idx ON user_slide_statistics_history (valid_from, source);

DROP INDEX IF EXISTS course_progress_history_source_valid_from_idx;

CREATE INDEX course_progress_history_valid_from_source_idx ON course_progress_history (valid_from, source);

DROP INDEX IF EXISTS users_history_source_email_idx;

CREATE INDEX users_history_email_source_idx ON users_history (email, source);

DROP INDEX IF EXISTS users_history_source_external_id_idx;

CREATE INDEX users_history_external_id_source_idx ON users_history (external_id, source);
