package fakeserve

import "html/template"

var pages = template.Must(template.New("pages").Parse(pageTemplates))

const pageTemplates = `
{{define "head"}}<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.}} · edapp fake</title>
<style>
body{font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;background:#f4f5f7;color:#1d2330}
main{max-width:40rem;margin:2rem auto;padding:1.5rem 2rem;background:#fff;border-radius:8px;box-shadow:0 1px 3px rgba(0,0,0,.12)}
h1{font-size:1.6rem;margin:.2rem 0 1rem}
.course{color:#5a6275;text-transform:uppercase;letter-spacing:.05em;font-size:.8rem;margin:0}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.3rem 1rem;margin:0 0 1.5rem}
dt{color:#5a6275}dd{margin:0}
form{border-top:1px solid #e3e5ea;padding-top:1rem}
label{display:block;margin-bottom:.8rem}
input[type=number]{font:inherit;width:5rem;padding:.3rem;margin-left:.5rem}
button,.button{font:inherit;padding:.5rem 1rem;border-radius:6px;border:1px solid #3a5bd9;background:#3a5bd9;color:#fff;cursor:pointer;text-decoration:none;display:inline-block}
button.secondary{background:#fff;color:#3a5bd9}
.done{background:#e7f6ec;border:1px solid #9bd3ad;padding:.8rem 1rem;border-radius:6px}
.left{background:#fff7e0;border:1px solid #e6cc7a;padding:.8rem 1rem;border-radius:6px}
.error{background:#fdecec;border:1px solid #e6a1a1;padding:.8rem 1rem;border-radius:6px}
table{border-collapse:collapse;width:100%;margin-bottom:1.5rem}
td,th{text-align:left;padding:.35rem .5rem;border-bottom:1px solid #e3e5ea}
footer{color:#8a91a3;font-size:.8rem;margin-top:1.5rem}
</style>
</head>
<body>
<main>
{{end}}

{{define "foot"}}<footer>edapp fake: a fake of the EdApp service for development.</footer>
</main>
</body>
</html>
{{end}}

{{define "launch"}}{{template "head" .LessonTitle}}<p class="course">{{.CourseTitle}}</p>
<h1>{{.LessonTitle}}</h1>
<dl>
<dt>Learner</dt><dd id="learner">{{.Learner}}</dd>
<dt>Lesson</dt><dd>{{.LessonID}}{{if .MinimumScore}}, passing score {{.MinimumScore}}{{end}}</dd>
<dt>Link expires</dt><dd id="expires">{{.Expires}} (in {{.ExpiresIn}})</dd>
</dl>
{{if .Done}}{{if .Completed}}<div class="done" id="result">
<p><strong>Lesson completed</strong> with a score of {{.ScoreText}}.{{if .CourseCompleted}} The course is completed too.{{end}}</p>
<p>Progress and the attempt are recorded.{{range .Deliveries}} Sent {{.}}.{{end}}</p>
</div>{{else}}<div class="left" id="result">
<p><strong>Lesson left</strong> opened but not completed.</p>
</div>{{end}}
{{if .ReturnURL}}<p><a class="button" id="return" href="{{.ReturnURL}}">Back to the app</a></p>{{end}}
{{else}}<form method="post" action="launch-lesson">
<input type="hidden" name="token" value="{{.Token}}">
<input type="hidden" name="lesson" value="{{.LessonID}}">
{{if .ReturnURL}}<input type="hidden" name="returnUrl" value="{{.ReturnURL}}">{{end}}
<label>Score (0-100)<input type="number" name="score" min="0" max="100" step="any" value="100" required></label>
<button type="submit" name="action" value="complete" id="complete">Complete the lesson</button>
<button type="submit" name="action" value="leave" id="leave" class="secondary" formnovalidate>Leave without completing</button>
</form>
{{end}}{{template "foot"}}{{end}}

{{define "error"}}{{template "head" .Title}}<h1>{{.Title}}</h1>
<div class="error" id="error"><p>{{.Message}}</p><p>Status {{.Status}}.</p></div>
{{template "foot"}}{{end}}

{{define "learner"}}{{template "head" .Learner}}<p class="course">Learner home</p>
<h1>{{.Learner}}</h1>
{{range .Courses}}<h2>{{.Title}}{{if .Completed}} ✓{{end}}</h2>
<table>
<tr><th>Lesson</th><th>Status</th><th></th></tr>
{{range .Lessons}}<tr><td>{{.Title}}</td><td>{{if .Completed}}completed{{else if .Opened}}opened{{else}}not started{{end}}</td><td><a href="{{.LaunchURI}}">Launch</a></td></tr>
{{end}}</table>
{{else}}<p>No published course reaches {{.UserID}}.</p>
{{end}}<p>Launch links are fresh on every visit and valid for 20 minutes.</p>
{{template "foot"}}{{end}}
`
