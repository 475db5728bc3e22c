ALTER TABLE identities ADD COLUMN edapp_email TEXT;

ALTER TABLE identities ADD COLUMN safetyculture_email TEXT;

ALTER TABLE identities ADD COLUMN edapp_title TEXT;

ALTER TABLE identities ADD COLUMN safetyculture_title TEXT;

DROP VIEW IF EXISTS training_completions;

CREATE VIEW training_completions AS
SELECT p.source, ip.id AS person_id, COALESCE(ip.email, u.email, p.user_id) AS person,
  ic.id AS course_identity_id, COALESCE(ic.edapp_title, ic.safetyculture_title, c.title, p.course_title) AS course, p.completed_date_time AS completed_at, p.score
FROM course_progress p
LEFT JOIN identities ip ON ip.kind = 'person' AND ((p.source = 'edapp' AND ip.edapp_id = p.user_id)
  OR (p.source = 'safetyculture' AND ip.safetyculture_id = p.user_id))
LEFT JOIN identities ic ON ic.kind = 'course' AND ((p.source = 'edapp' AND ic.edapp_id = p.course_id)
  OR (p.source = 'safetyculture' AND ic.safetyculture_id = p.course_id))
LEFT JOIN users u ON u.source = p.source AND u.id = p.user_id
LEFT JOIN courses c ON c.source = p.source AND c.id = p.course_id
WHERE p.completed_date_time IS NOT NULL;

DROP VIEW IF EXISTS people;

CREATE VIEW people AS
SELECT id AS person_id, edapp_id, safetyculture_id, email, edapp_external_id, safetyculture_external_id, matched_by,
  COALESCE(email, edapp_id, safetyculture_id) AS person, edapp_email, safetyculture_email
FROM identities WHERE kind = 'person';

UPDATE edapp_export_kinds SET identities_changed = NULL;
