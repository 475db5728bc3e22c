DROP INDEX IF EXISTS attempts_user_id_idx;

CREATE INDEX attempts_user_id_idx ON attempts (user_id);

DROP INDEX IF EXISTS attempts_course_id_idx;

CREATE INDEX attempts_course_id_idx ON attempts (course_id);

DROP INDEX IF EXISTS attempts_lesson_id_idx;

CREATE INDEX attempts_lesson_id_idx ON attempts (lesson_id);

DROP INDEX IF EXISTS collection_courses_course_id_idx;

CREATE INDEX collection_courses_course_id_idx ON collection_courses (course_id);

DROP INDEX IF EXISTS course_progress_course_id_idx;

CREATE INDEX course_progress_course_id_idx ON course_progress (course_id);

DROP INDEX IF EXISTS courses_external_id_idx;

CREATE INDEX courses_external_id_idx ON courses (external_id);

DROP INDEX IF EXISTS group_children_child_id_idx;

CREATE INDEX group_children_child_id_idx ON group_children (child_id);

DROP INDEX IF EXISTS group_members_user_id_idx;

CREATE INDEX group_members_user_id_idx ON group_members (user_id);

DROP INDEX IF EXISTS lesson_progress_events_course_id_idx;

CREATE INDEX lesson_progress_events_course_id_idx ON lesson_progress_events (course_id);

DROP INDEX IF EXISTS lesson_progress_events_lesson_id_idx;

CREATE INDEX lesson_progress_events_lesson_id_idx ON lesson_progress_events (lesson_id);

DROP INDEX IF EXISTS lesson_statistics_course_id_idx;

CREATE INDEX lesson_statistics_course_id_idx ON lesson_statistics (course_id);

DROP INDEX IF EXISTS lessons_course_id_idx;

CREATE INDEX lessons_course_id_idx ON lessons (course_id);

DROP INDEX IF EXISTS rapid_refresh_answers_user_id_idx;

DROP INDEX IF EXISTS rapid_refresh_answers_rapid_refresh_id_idx;

DROP INDEX IF EXISTS site_members_member_id_idx;

CREATE INDEX site_members_member_id_idx ON site_members (member_id);

DROP INDEX IF EXISTS slide_statistics_lesson_id_idx;

DROP INDEX IF EXISTS survey_answers_user_id_idx;

CREATE INDEX survey_answers_user_id_idx ON survey_answers (user_id);

DROP INDEX IF EXISTS survey_answers_course_id_idx;

CREATE INDEX survey_answers_course_id_idx ON survey_answers (course_id);

DROP INDEX IF EXISTS survey_answers_lesson_id_idx;

CREATE INDEX survey_answers_lesson_id_idx ON survey_answers (lesson_id);

DROP INDEX IF EXISTS survey_questions_course_id_idx;

CREATE INDEX survey_questions_course_id_idx ON survey_questions (course_id);

DROP INDEX IF EXISTS survey_questions_lesson_id_idx;

CREATE INDEX survey_questions_lesson_id_idx ON survey_questions (lesson_id);

DROP INDEX IF EXISTS user_custom_fields_name_idx;

CREATE INDEX user_custom_fields_name_idx ON user_custom_fields (name);

DROP INDEX IF EXISTS user_lesson_progress_course_id_idx;

CREATE INDEX user_lesson_progress_course_id_idx ON user_lesson_progress (course_id);

DROP INDEX IF EXISTS user_lesson_progress_lesson_id_idx;

CREATE INDEX user_lesson_progress_lesson_id_idx ON user_lesson_progress (lesson_id);

DROP INDEX IF EXISTS user_lesson_progress_events_course_id_idx;

CREATE INDEX user_lesson_progress_events_course_id_idx ON user_lesson_progress_events (course_id);

DROP INDEX IF EXISTS user_lesson_progress_events_lesson_id_idx;

CREATE INDEX user_lesson_progress_events_lesson_id_idx ON user_lesson_progress_events (lesson_id);

DROP INDEX IF EXISTS user_slide_statistics_slide_id_idx;

DROP INDEX IF EXISTS user_slide_statistics_lesson_id_idx;

DROP INDEX IF EXISTS users_external_id_idx;

CREATE INDEX users_external_id_idx ON users (external_id);
