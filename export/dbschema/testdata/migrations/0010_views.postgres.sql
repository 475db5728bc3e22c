CREATE VIEW training_completions AS
SELECT p.source, ip.id AS person_id, COALESCE(u.email, p.user_id) AS person,
  ic.id AS course_identity_id, COALESCE(c.title, p.course_title) AS course, p.completed_date_time AS completed_at, p.score
FROM course_progress p
LEFT JOIN identities ip ON ip.kind = 'person' AND ((p.source = 'edapp' AND ip.edapp_id = p.user_id)
  OR (p.source = 'safetyculture' AND ip.safetyculture_id = p.user_id))
LEFT JOIN identities ic ON ic.kind = 'course' AND ((p.source = 'edapp' AND ic.edapp_id = p.course_id)
  OR (p.source = 'safetyculture' AND ic.safetyculture_id = p.course_id))
LEFT JOIN users u ON u.source = p.source AND u.id = p.user_id
LEFT JOIN courses c ON c.source = p.source AND c.id = p.course_id
WHERE p.completed_date_time IS NOT NULL;

CREATE VIEW people AS
SELECT id AS person_id, edapp_id, safetyculture_id, email, edapp_external_id, safetyculture_external_id, matched_by
FROM identities WHERE kind = 'person';
