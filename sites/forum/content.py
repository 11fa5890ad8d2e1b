"""The words of the forum world: members, tags, everyday questions and the scenario banks.

Nothing here is random: the generator draws from these tables with the episode's RNG.
"""

FIRST_NAMES = (
    "Adaeze", "Alina", "Anders", "Arjun", "Beatriz", "Bram", "Callum", "Camille", "Dario", "Delphine", "Eamon",
    "Elif", "Esme", "Farah", "Felix", "Gideon", "Greta", "Hamid", "Hana", "Idris", "Ines", "Isla", "Jonah",
    "Josefin", "Kai", "Keira", "Lars", "Leila", "Lorenzo", "Lucia", "Malik", "Mara", "Mateo", "Mei", "Nadia",
    "Nico", "Nora", "Oren", "Orla", "Pavel", "Petra", "Quinn", "Rafael", "Rhea", "Rowan", "Silas", "Sofia",
    "Soren", "Tamsin", "Tariq", "Thea", "Tobias", "Uma", "Vera", "Wren", "Yusuf", "Zara",
)
LAST_NAMES = (
    "Abbott", "Adeyemi", "Bancroft", "Bergstrom", "Calloway", "Castellano", "Chen", "Dimitrov", "Donnelly",
    "Ekwueme", "Falk", "Fontaine", "Gallagher", "Haddad", "Halloran", "Ibsen", "Iwasaki", "Jansen", "Kapoor",
    "Kowalczyk", "Lindqvist", "Lomax", "Marchetti", "Moreau", "Nakagawa", "Nyberg", "Okafor", "Pellegrini",
    "Quintero", "Ramsey", "Rasmussen", "Sandoval", "Sato", "Sheridan", "Sorensen", "Takahashi", "Thornbury",
    "Valdez", "Whitlock", "Winslow", "Yilmaz", "Zielinski",
)
# Handles some members go by instead of a full name.
HANDLES = ("bytewrangler", "null_pointer", "tabs4ever", "segfault_sam", "kernelpanic", "yak_shaver", "grepmaster",
           "lambda_lou", "docker_dan", "regex_rita", "ssh_keygen", "off_by_one")
LOCATIONS = (
    "Lisbon, Portugal", "Toronto, Canada", "Pune, India", "Leeds, UK", "Austin, TX", "Melbourne, Australia",
    "Nairobi, Kenya", "Osaka, Japan", "Gdańsk, Poland", "Bogotá, Colombia", "Tallinn, Estonia", "Lyon, France",
    "Cape Town, South Africa", "Porto Alegre, Brazil", "Dublin, Ireland", "Utrecht, Netherlands",
)
ABOUTS = (
    "Backend developer. Mostly Python and PostgreSQL these days.",
    "Sysadmin turned SRE. I answer the questions I wish someone had answered for me.",
    "Frontend engineer, occasional accessibility nerd.",
    "Student. Learning by breaking things.",
    "Data engineer; pipelines, SQL and far too much YAML.",
    "Hobbyist. Raspberry Pis, home servers and shell scripts.",
    "I write docs for a living and code for fun.",
    "Embedded C by day, Rust by night.",
)

# name -> summary
TAGS = (
    ("python", "A general-purpose programming language. Tag the version too when it matters."),
    ("git", "A distributed version control system."),
    ("docker", "Building and running applications in containers."),
    ("linux", "Questions about the Linux kernel and the systems built on it."),
    ("postgresql", "An open-source relational database."),
    ("javascript", "The language of the web, in browsers and on servers."),
    ("css", "Styling web pages: layout, selectors, cascade."),
    ("bash", "The GNU Bourne-Again shell and shell scripting."),
    ("regex", "Regular expressions: patterns that match text."),
    ("nginx", "A web server, reverse proxy and load balancer."),
    ("ssh", "Secure shell: remote logins, keys and tunnels."),
    ("pip", "The package installer for Python."),
)

# Everyday questions: (tags, title, opening line, detail, command, answer)
EVERYDAY = (
    (("python",), "How do I read a CSV file into a list of dictionaries?",
     "I have a CSV with a header row and want each row as a dict keyed by column name.",
     "Right now I split lines on commas, which breaks on quoted fields.", "python3 load.py data.csv",
     "Use csv.DictReader: `with open(path, newline='') as f: rows = list(csv.DictReader(f))`. It handles quoting."),
    (("python",), "Why does my default list argument keep growing between calls?",
     "A function with `def add(item, items=[])` returns more items every time I call it.",
     "I expected a fresh empty list on every call.", "python3 -c 'import mod; print(mod.add(1), mod.add(2))'",
     "Defaults are evaluated once, when the function is defined. Use `items=None` and create the list inside."),
    (("python",), "Sorting a list of tuples by the second element",
     "I have pairs like (name, score) and want them ordered by score, highest first.",
     "sorted() orders them by name.", "python3 rank.py",
     "`sorted(pairs, key=lambda p: p[1], reverse=True)` — or operator.itemgetter(1) for the key."),
    (("git",), "How do I undo the last commit but keep the changes?",
     "I committed too early and want the changes back in my working tree.",
     "Nothing has been pushed yet.", "git log --oneline -3",
     "`git reset --soft HEAD~1` keeps the changes staged; `git reset HEAD~1` keeps them unstaged."),
    (("git",), "Git says 'detached HEAD' after I checked out a tag",
     "I ran git checkout on a release tag and now git status shows a detached HEAD.",
     "Are my commits here safe?", "git checkout v1.4.0",
     "You are not on a branch. Create one before committing: `git switch -c fix-from-1.4`."),
    (("git",), "Remove a file from the repository but keep it on disk",
     "I accidentally committed a local config file and want git to forget it.",
     "It must stay on my machine.", "git status",
     "`git rm --cached config.local.yml`, add it to .gitignore, then commit."),
    (("docker",), "Container exits immediately after docker run",
     "My image builds fine but the container stops right after it starts.",
     "docker ps -a shows 'Exited (0)'.", "docker run -d myapp:latest",
     "The main process finished. Run something in the foreground (the server itself) as CMD, not a background job."),
    (("docker",), "How do I see the logs of a stopped container?",
     "A container crashed overnight and I want to know why.",
     "It is not running any more.", "docker ps -a",
     "`docker logs <container>` works on stopped containers too, as long as it was not removed."),
    (("docker", "linux"), "Permission denied on a bind-mounted volume",
     "The process in my container can't write to a directory I mounted from the host.",
     "The directory belongs to my user on the host.", "docker run -v $PWD/data:/data myapp",
     "The container runs as another uid. Run it with `--user $(id -u):$(id -g)` or fix the ownership."),
    (("linux",), "Find which process is listening on a port",
     "Something is already using port 8080 and my server won't start.",
     "I don't know what it is.", "curl localhost:8080",
     "`sudo ss -ltnp 'sport = :8080'` shows the process and its pid."),
    (("linux", "bash"), "How do I make a script run at boot?",
     "I have a small script that should start after the network is up.",
     "cron @reboot runs too early.", "crontab -l",
     "Write a systemd unit with `After=network-online.target` and `Wants=network-online.target`, then enable it."),
    (("linux",), "Disk is full but du shows much less used",
     "df says the root filesystem is 100% used but du -sh / adds up to half of that.",
     "I already deleted some big logs.", "df -h /",
     "Deleted files still held open by a process keep their space. `lsof +L1` lists them; restart that process."),
    (("postgresql",), "How do I list all tables in a PostgreSQL database?",
     "In MySQL I would use SHOW TABLES.",
     "What is the psql equivalent?", "psql -d shop",
     "In psql, `\\dt` (or `\\dt *.*` for every schema); in SQL, query information_schema.tables."),
    (("postgresql",), "Query is slow despite an index on the column",
     "A WHERE on lower(email) takes seconds although email is indexed.",
     "The table has two million rows.", "EXPLAIN ANALYZE SELECT * FROM users WHERE lower(email) = 'x'",
     "The index is on email, not lower(email). Create an expression index: `CREATE INDEX ON users (lower(email))`."),
    (("postgresql",), "Reset a sequence after importing rows",
     "After a bulk import, inserts fail with duplicate key on the id column.",
     "The import set the ids explicitly.", "INSERT INTO items (name) VALUES ('x')",
     "`SELECT setval('items_id_seq', (SELECT max(id) FROM items));`"),
    (("javascript",), "Why does forEach not wait for my async function?",
     "I call an async function inside array.forEach and the code after it runs first.",
     "I need all of them to finish.", "node sync.js",
     "forEach ignores returned promises. Use `for (const x of xs) await f(x)` or `await Promise.all(xs.map(f))`."),
    (("javascript",), "Check whether an object has a property",
     "I need to know if a key exists even when its value is undefined.",
     "`if (obj.key)` fails for falsy values.", "node check.js",
     "`Object.hasOwn(obj, 'key')` (or `'key' in obj` to include inherited properties)."),
    (("javascript",), "Fetch request is blocked by CORS",
     "My page on localhost:3000 calls an API on localhost:8000 and the browser blocks it.",
     "The same request works with curl.", "curl -i localhost:8000/api/items",
     "The API must send Access-Control-Allow-Origin for your origin; curl does not enforce CORS, browsers do."),
    (("css",), "Center a div horizontally and vertically",
     "I want a box in the middle of the viewport.",
     "margin: auto only centers horizontally.", "open index.html",
     "On the parent: `display: grid; place-items: center; min-height: 100vh;`."),
    (("css",), "Why is my z-index ignored?",
     "A dropdown with z-index: 999 still appears under the header.",
     "The header has z-index: 10.", "open page.html",
     "z-index only compares within the same stacking context; a parent with transform or opacity creates a new one."),
    (("css",), "Make a flex item not shrink",
     "An icon in a flex row gets squashed when the text next to it is long.",
     "I set a width on it.", "open card.html",
     "Give the icon `flex-shrink: 0` (or `flex: none`)."),
    (("bash",), "Loop over files with spaces in their names",
     "My for loop over $(ls) breaks file names with spaces into pieces.",
     "The files come from a camera.", "for f in $(ls *.jpg); do echo $f; done",
     "Don't parse ls. Use a glob: `for f in *.jpg; do echo \"$f\"; done` (and quote the variable)."),
    (("bash",), "How do I check if a variable is empty?",
     "I want to exit when an argument is missing.",
     "`if [ $1 == '' ]` gives 'unary operator expected'.", "./deploy.sh",
     "Quote it and use -z: `if [ -z \"${1:-}\" ]; then echo missing; exit 1; fi`."),
    (("bash",), "Redirect both stdout and stderr to a file",
     "I want everything the command prints in one log.",
     "`> log.txt` only catches part of it.", "./build.sh > log.txt",
     "`./build.sh > log.txt 2>&1` (order matters) or, in bash, `&> log.txt`."),
    (("regex",), "Match a word that is not followed by another word",
     "I want 'foo' only when it is not followed by 'bar'.",
     "My pattern foo[^b] misses the end of the line.", "grep -P 'foo[^b]' input.txt",
     "Use a negative lookahead: `foo(?!bar)` (needs -P with grep)."),
    (("regex", "javascript"), "Regex to validate a hex colour",
     "I need to accept #abc and #a1b2c3 but nothing else.",
     "My pattern accepts #abcd.", "node validate.js",
     "`/^#(?:[0-9a-fA-F]{3}){1,2}$/`"),
    (("nginx",), "nginx returns 413 Request Entity Too Large",
     "Uploads over 1 MB fail behind nginx.",
     "The app itself allows 50 MB.", "curl -F file=@video.mp4 https://example.test/upload",
     "Raise `client_max_body_size 50m;` in the http, server or location block and reload nginx."),
    (("nginx",), "Redirect http to https in nginx",
     "I want every plain-http request to go to https with the same path.",
     "I have the certificate set up already.", "curl -I http://example.test/about",
     "A server block on port 80 with `return 301 https://$host$request_uri;`."),
    (("ssh",), "SSH asks for a password although I added my key",
     "I copied my public key to the server but ssh still prompts for a password.",
     "The key works on another server.", "ssh -v deploy@server",
     "Check permissions: ~/.ssh must be 700 and authorized_keys 600, owned by the user, or sshd ignores them."),
    (("ssh",), "Keep an SSH session alive over a flaky connection",
     "My session freezes and drops after a few idle minutes.",
     "It is a home router, probably dropping idle connections.", "ssh me@host",
     "Set `ServerAliveInterval 60` (and `ServerAliveCountMax 3`) in ~/.ssh/config."),
    (("pip", "python"), "pip installs packages into the wrong Python",
     "I have two Pythons and `pip install` puts packages where `python3` can't see them.",
     "`which pip` and `which python3` point to different places.", "pip install requests",
     "Run pip through the interpreter you use: `python3 -m pip install requests`."),
    (("pip",), "How do I pin every dependency version?",
     "I want the same versions on every machine.",
     "pip freeze lists things I never installed directly.", "pip freeze",
     "Keep direct dependencies in requirements.in and compile a lock file with pip-tools (`pip-compile`)."),
    (("python", "postgresql"), "psycopg2 fails to install with 'pg_config executable not found'",
     "Installing psycopg2 from pip stops with a build error.",
     "I'm on a fresh machine.", "pip install psycopg2",
     "Install the PostgreSQL client headers (libpq-dev) or use the psycopg2-binary wheel for development."),
    (("docker", "nginx"), "nginx in Docker can't reach my app container",
     "proxy_pass http://localhost:5000 gives 502 inside the nginx container.",
     "Both containers run from one compose file.", "docker compose up",
     "localhost is the nginx container itself. Use the service name: `proxy_pass http://app:5000;`."),
    (("linux", "ssh"), "Copy a directory to a remote server",
     "I need to upload a whole folder with its subfolders.",
     "scp copies only files.", "scp site/ me@host:/var/www",
     "`scp -r site me@host:/var/www/` or, better for repeats, `rsync -av site/ me@host:/var/www/site/`."),
)

# The namesakes: two members with the same display name answer the same question.
NAMESAKE_QUESTIONS = (
    (("git",), "Squash the last three commits into one before pushing",
     "I have three small commits on my feature branch that should be one.",
     "Nothing is pushed yet.", "git log --oneline -4",
     ("Run `git rebase -i HEAD~3`, keep the first `pick` and change the other two to `squash` (or `s`).",
      "Without an editor: `git reset --soft HEAD~3 && git commit` — it keeps the changes and makes one commit.",
      "If you already pushed, you'll need `git push --force-with-lease` afterwards; tell your team first.")),
    (("docker",), "Shrink a Python Docker image that is over 1 GB",
     "My image based on python:3.12 is huge although the app is small.",
     "Most of it seems to be build tools.", "docker images",
     ("Use a multi-stage build: compile wheels in a builder stage and copy only them into python:3.12-slim.",
      "Start from `python:3.12-slim` and add `--no-cache-dir` to pip; that alone usually halves it.",
      "Check what takes the space with `docker history --no-trunc` before optimising blindly.")),
)

# Questions the user answered with a wrong default: (tags, title, opening, setting, wrong, right, where)
OWN_ANSWER = (
    (("nginx",), "nginx drops idle keep-alive connections sooner than expected",
     "Clients behind our load balancer see connections closed after about a minute.",
     "keepalive_timeout", "60s", "75s", "in the http block"),
    (("postgresql",), "Connections rejected with 'too many clients already'",
     "Our app pool opens 120 connections and PostgreSQL starts refusing them.",
     "max_connections", "200", "100", "in postgresql.conf (restart required)"),
    (("ssh",), "sshd disconnects before I can type my password",
     "On a slow link the server drops me during the login prompt.",
     "LoginGraceTime", "60 seconds", "120 seconds", "in /etc/ssh/sshd_config"),
)

# Near-duplicate questions that differ only in the system the asker runs (stated in the body).
DISTRO_TITLES = (
    ("pip install fails with error: externally-managed-environment",
     "When I run pip install for anything, I get “error: externally-managed-environment”.",
     ("pip", "python"),
     "Create a virtual environment first: `python3 -m venv .venv && . .venv/bin/activate`, then pip install "
     "works as usual."),
    ("Docker daemon won't start after upgrading",
     "After a system upgrade the Docker daemon fails to start and docker ps hangs.",
     ("docker", "linux"),
     "Check `journalctl -u docker` first; after this upgrade the storage driver setting usually needs to be removed "
     "from /etc/docker/daemon.json."),
)
DISTROS = ("Debian 12", "Ubuntu 24.04", "Fedora 40", "Arch Linux", "openSUSE Tumbleweed", "Linux Mint 22")

# An old, highly voted, accepted answer that a newer answer shows to be outdated:
# (tags, title, opening, old answer, new answer, tool, since_version)
OUTDATED = (
    (("git",), "How do I make new repositories use 'main' as the default branch?",
     "Every git init creates a branch called master and I have to rename it each time.",
     "You can't change it: git init always creates master. Rename it right after with "
     "`git branch -m master main`.",
     "Since Git 2.28 you can: `git config --global init.defaultBranch main`. New repositories start on main, "
     "no renaming needed.",
     "Git", "2.28"),
    (("python",), "How do I merge two dictionaries in a single expression?",
     "I want a new dict with the keys of both, the second one winning on conflicts.",
     "There is no operator for it; use `z = x.copy()` and then `z.update(y)`, or `{**x, **y}`.",
     "Since Python 3.9 there is an operator for exactly this: `z = x | y` (and `x |= y` updates in place).",
     "Python", "3.9"),
    (("docker",), "How do I run a multi-container app with Compose?",
     "I have a docker-compose.yml and want to start everything.",
     "Install the separate docker-compose tool with pip and run `docker-compose up -d`.",
     "Since Docker Compose V2 (Docker 20.10+) Compose is a Docker plugin: run `docker compose up -d` "
     "(with a space); the pip-installed docker-compose is no longer maintained.",
     "Docker", "20.10"),
)

# Spam: an answer advertising a download, on an ordinary question.
SPAM_TEXT = (
    "Had the same problem!!! Fixed it in one click with {product}, it repairs ALL {topic} errors automatically. "
    "Download free here: {url} — works 100% guaranteed"
)
SPAM_PRODUCTS = (("FixAll Pro 2025", "fixall-pro.test"), ("DevBoost Cleaner", "devboost-cleaner.test"),
                 ("ErrorMedic Suite", "errormedic.test"))
SPAM_HANDLES = ("fixall_support", "devboost_official", "errormedic_team")
LEGIT_LINKS = {
    "python": "https://docs.python.org/3/library/venv.html",
    "git": "https://git-scm.com/docs/git-config",
    "docker": "https://docs.docker.com/engine/reference/commandline/logs/",
    "linux": "https://man7.org/linux/man-pages/man8/ss.8.html",
    "bash": "https://www.gnu.org/software/bash/manual/bash.html",
}

# New questions the user may be asked to post: (title, body, tag_a, tag_b)
ASK = (
    ("How do I run a cron job every 15 minutes only on weekdays?",
     "I need a backup script to run every quarter of an hour, Monday to Friday, and never at weekends. "
     "What is the crontab line for that?", "linux", "bash"),
    ("Git rebase onto main keeps reporting the same conflict",
     "Every time I rebase my branch onto main, git stops on the same conflict in settings.py, even after I "
     "resolved it in an earlier rebase. How do I make git remember the resolution?", "git", "python"),
    ("Docker build cache is ignored for the pip install step",
     "Even when requirements.txt has not changed, docker build reinstalls every package. How should I order "
     "the Dockerfile so the pip layer is cached?", "docker", "pip"),
    ("PostgreSQL: how to find the slowest queries on a server",
     "Our database got slow this week. Which tool or view tells me which queries take the most total time?",
     "postgresql", "linux"),
)

# Background questions that nobody has answered yet (the "unanswered" tab), by tag.
UNANSWERED = {
    "linux": ("Strange delay before every command in a new terminal",
              "Service restarts in a loop after changing its unit file",
              "System clock drifts by minutes after resume from suspend"),
    "docker": ("Image tag 'latest' pulls an old build on one machine",
               "Healthcheck passes locally but fails in the CI runner",
               "Container DNS stops resolving after the host VPN connects"),
    "git": ("Commit signing stopped working after moving my key",
            "Sparse checkout still downloads the whole history",
            "Submodule shows as modified although nothing changed"),
    "python": ("asyncio task silently disappears without an exception",
               "Type checker can't infer the type of a cached property",
               "Logging output duplicated after importing a library"),
    "regex": ("Why does this pattern match an empty string at the end?",),
    "css": ("Grid layout overflows on narrow screens only in one browser",),
    "nginx": ("Upstream timed out only for large responses",),
    "ssh": ("Agent forwarding doesn't work through a jump host",),
    "postgresql": ("Table bloat after nightly bulk deletes",),
}
UNANSWERED_BODY = (
    "This started recently and I can't find anything in the logs about it. I've tried the obvious fixes from "
    "the documentation without any change. Any idea what to look at next?"
)

COMMENTS = (
    "Can you share the exact error message?",
    "Which version are you on? This changed a while ago.",
    "This worked for me, thanks!",
    "Note that this also needs a restart afterwards.",
    "Did you check the permissions on that directory?",
    "Worth adding that this is not safe on a shared machine.",
    "Could you edit the question to include what you tried?",
    "Same here, the answer below fixed it.",
)

# The user's own question with a bounty on it, three answers: (tags, title, opening, detail, command, answers).
# The first answer is the one that fixed it (the task names its author).
BOUNTY_QUESTIONS = (
    (("postgresql",), "Query planner ignores my partial index on a large table",
     "A query filtering on status = 'open' does a sequential scan over 40 million rows.",
     "The partial index is WHERE status = 'open' and ANALYZE has run.",
     "EXPLAIN ANALYZE SELECT * FROM jobs WHERE status = 'open'",
     ("Your query passes the status as a parameter, so the planner can't prove it matches the index predicate. "
      "Inline the literal `'open'` (or use a plan_cache_mode of force_custom_plan) and the index is used.",
      "Increase `random_page_cost`-related settings: set `random_page_cost = 1.1` on SSDs and the planner will "
      "prefer indexes in general.",
      "Run `VACUUM FULL jobs` first; a bloated table makes index scans look expensive.")),
    (("docker", "linux"), "Container loses DNS after the host resumes from sleep",
     "After my laptop wakes up, containers can't resolve any host names until I restart Docker.",
     "The host itself resolves fine.", "docker exec web getent hosts example.org",
     ("Docker copied the resolver your host had at start-up. Point the daemon at a stable resolver with "
      "`\"dns\": [\"1.1.1.1\"]` in /etc/docker/daemon.json, or use systemd-resolved's stub and restart once.",
      "Add `--network host` to the container so it uses the host's network stack directly.",
      "This is a known kernel bug; upgrading the kernel fixes it.")),
    (("git",), "git pull is very slow on a repository with a long history",
     "A pull that fetches a handful of commits takes over a minute.",
     "The repository has 300,000 commits.", "GIT_TRACE_PERFORMANCE=1 git pull",
     ("Enable the commit-graph and maintenance: `git maintenance start` (it writes the commit-graph and repacks in "
      "the background); the negotiation step drops from a minute to seconds.",
      "Clone again with `--depth 1`; shallow clones fetch less.",
      "Switch the remote URL from https to ssh; ssh is faster for fetches.")),
)
# Open bounties other members put on their questions (amounts a bounty can have).
BOUNTY_AMOUNTS = (50, 100, 150, 200, 250, 300, 500)

# Private messages. A member asks the user for the link to one of the user's questions: (opening, closing).
LINK_REQUESTS = (
    ("Hi! A while ago you asked “{title}” — I have the same problem now.",
     "Could you send me the link to that question? I can't find it again."),
    ("Hello, I think we met at the meetup. You mentioned your question “{title}”.",
     "Would you mind sending me a link to it? Search isn't turning it up for me."),
)
# A colleague the user asks something by message, and their answer: (question, answer with {value}, values).
COLLEAGUE_QUESTIONS = (
    ("Which PostgreSQL version is the staging server on?",
     "Staging runs PostgreSQL {value}, we upgraded it last month.", ("15.4", "16.2", "14.11")),
    ("Which Python version does the build image use?",
     "The build image is on Python {value} at the moment.", ("3.11.7", "3.12.2", "3.10.13")),
    ("What nginx version are the edge servers running?",
     "All edge servers run nginx {value} since the last rollout.", ("1.24.0", "1.25.4", "1.26.1")),
)
SMALL_TALK = (
    ("Thanks for the answer about {tag} last week, it saved me an afternoon.", "Glad it helped!"),
    ("Are you going to the {tag} meetup next month?", "Probably, if work allows. See you there?"),
    ("Your edit on my {tag} question made it much clearer, thanks.", "No problem, it was a good question."),
)

# One problem asked three times: (tags, search words, original, a copy closed as its duplicate, the user's
# question, the original's accepted answer). Each title and body holds every search word.
DUPLICATES = (
    (("linux", "bash"), "cron job environment variables",
     "Cron job can't see my environment variables",
     "Environment variables missing when my script runs as a cron job",
     "Why are environment variables empty in my cron job?",
     "cron runs jobs with a minimal environment. Set the variables at the top of the crontab, or source your "
     "profile in the job: `. $HOME/.profile; /path/to/script`."),
    (("ssh",), "ssh permission denied publickey",
     "SSH fails with Permission denied (publickey)",
     "Permission denied (publickey) when I ssh to a new server",
     "ssh keeps saying Permission denied (publickey) after I copied my key",
     "Check the permissions: ~/.ssh must be 700 and authorized_keys 600 on the server, or sshd ignores the key. "
     "`ssh -v` shows which keys are offered."),
    (("docker",), "docker compose env file",
     "Docker Compose ignores my .env file",
     "Variables from the .env file are not picked up by docker compose",
     "docker compose does not read the env file in a subfolder",
     "Compose reads .env from the project directory (where the compose file is), not from where you run it. "
     "Pass `--env-file path/.env` or move the file."),
)

# Tags merged into another (the old name stays, deprecated): (old, new, what the questions are about).
DEPRECATED_TAGS = (
    ("postgres", "postgresql", "PostgreSQL"),
    ("py3", "python", "Python"),
    ("shell-script", "bash", "shell scripting"),
    ("js", "javascript", "JavaScript"),
)

# Badge names by tier (what earns them is the community's business; the profile lists them).
BADGES = {
    "gold": ("Great Answer", "Famous Question", "Populist", "Steward"),
    "silver": ("Good Answer", "Guru", "Enlightened", "Necromancer", "Notable Question", "Strunk & White",
               "Yearling", "Tenacious"),
    "bronze": ("Nice Answer", "Teacher", "Student", "Editor", "Commentator", "Supporter", "Scholar", "Critic",
               "Autobiographer", "Informed"),
}

# Roundups: a member asks which of three changes speeds something up most; three earlier threads each measured
# one, in their accepted answer. (tags, title, body, unit, threads) with threads (title, change, key (a word any
# answer naming the change uses), body, accepted, other); the answers' {n} is the figure the thread measured,
# {before} where it started, {m} another member's figure.
ROUNDUPS = (
    (("docker",), "Our CI pipeline takes over half an hour: which change makes the biggest difference?",
     "Every push waits {before} minutes for the pipeline. I've read about caching, parallel tests and multi-stage "
     "builds, but I can only try one this sprint. Has anyone compared them?", "minutes",
     (("Does caching dependencies between CI runs speed up the build?", "caching dependencies", "cach",
       "Every job downloads all our packages again. Is a dependency cache worth setting up?",
       "We restore the dependency cache at the start of each job. The whole pipeline went from {before} minutes "
       "to {n} minutes.", "It helped us a little, nothing dramatic: about {m} minutes on our runners."),
      ("Is splitting the test suite across parallel CI jobs worth it?", "running the tests in parallel jobs",
       "parallel",
       "The test stage is most of our pipeline. Would four parallel jobs really cut it down?",
       "We split the suite across four jobs by timing data. End to end it now takes {n} minutes, down from "
       "{before}.", "Parallel jobs start slower than you'd think; ours ended up at {m} minutes."),
      ("Will a multi-stage Docker build make our pipeline faster?", "a multi-stage Docker build", "multi-stage",
       "Our image build copies the whole toolchain into the final image. Would multi-stage help the pipeline?",
       "Moving the toolchain into a build stage shrank the image and the pushes. The pipeline takes {n} minutes "
       "now instead of {before}.", "For us the build stage cache kept missing, so it stayed around {m} minutes."))),
    (("postgresql",), "Our nightly report query is too slow: which fix helps the most?",
     "The report runs for {before} minutes every night and blocks the backups. Which of the usual fixes should I "
     "try first?", "minutes",
     (("Does a partial index help a slow reporting query?", "a partial index", "partial index",
       "The report only reads open orders, a small part of the table. Would a partial index help?",
       "A partial index on the open orders did it: the report finishes in {n} minutes instead of {before}.",
       "The planner ignored my partial index until I rewrote the filter; it was still {m} minutes."),
      ("Should I run VACUUM ANALYZE before a big report?", "running VACUUM ANALYZE first", "vacuum",
       "Statistics on our orders table are probably stale. Is VACUUM ANALYZE before the report worth it?",
       "With fresh statistics the planner picks a hash join. The report went from {before} minutes to {n}.",
       "On our database it made no real difference: {m} minutes before and after."),
      ("Does raising work_mem speed up large sorts in a report?", "raising work_mem", "work_mem",
       "EXPLAIN shows an external merge sort on disk. Would more work_mem help?",
       "Raising work_mem for the report's session keeps the sort in memory: {n} minutes, down from {before}.",
       "Be careful with work_mem per connection; we only got down to {m} minutes anyway."))),
    (("git",), "Cloning our monorepo takes ages: what's the fastest way to get a working copy?",
     "A fresh clone takes {before} minutes on our build agents. Which of the clone options actually helps the "
     "most?", "minutes",
     (("Is a shallow clone much faster for a big repository?", "a shallow clone", "shallow",
       "We only need the latest commit on the build agents. Does --depth 1 really save much?",
       "With `git clone --depth 1` the clone takes {n} minutes on our agents instead of {before}.",
       "Shallow clones were slower to fetch into later for us; about {m} minutes all told."),
      ("Does a blobless partial clone speed up cloning a monorepo?", "a blobless partial clone", "blobless",
       "I read about `--filter=blob:none`. Is it faster than a full clone in practice?",
       "`git clone --filter=blob:none` brought our clone from {before} minutes down to {n} minutes.",
       "Checkout then fetches the blobs lazily, so for us it was still {m} minutes."),
      ("Would sparse checkout make working with a monorepo faster?", "sparse checkout", "sparse",
       "Each team only needs a few directories. Does sparse checkout make the clone faster?",
       "Cloning with `--sparse` and checking out our two directories takes {n} minutes; the full clone took "
       "{before}.", "Sparse checkout alone didn't save us much time: {m} minutes."))),
)

# Suggested edits to others' answers: an accepted answer still gives a command an update replaced, and a comment
# under it says so. (tags, title, question body, answer (with {cmd}), old command, new command, comment)
RENAMED_COMMANDS = (
    (("git",), "How do I make my local branch track a branch on the remote?",
     "I created a branch locally and pushed it, but `git pull` still asks which branch to merge with. How do I "
     "tell git which remote branch mine follows?",
     "Run `{cmd}` while your branch is checked out. After that a plain `git pull` and `git status` know which "
     "remote branch yours follows.", "git branch --set-upstream origin/main",
     "git branch --set-upstream-to=origin/main",
     "`git branch --set-upstream` was removed years ago; it's `git branch --set-upstream-to=origin/main` now."),
    (("git",), "How do I stash my changes with a message so I can find them later?",
     "I keep several stashes and can't tell them apart in `git stash list`. How do I give a stash a name?",
     "Give the message when you stash: `{cmd}`. `git stash list` then shows it next to the stash.",
     "git stash save \"work in progress\"", "git stash push -m \"work in progress\"",
     "`git stash save` is deprecated; the current form is `git stash push -m \"work in progress\"`."),
    (("docker",), "How do I start every service in my compose file in the background?",
     "I have a compose file with a database and two services. How do I start them all and get my terminal back?",
     "From the folder with the compose file run `{cmd}`; the -d flag detaches, and `docker compose ps` lists "
     "what runs.", "docker-compose up -d", "docker compose up -d",
     "The separate docker-compose tool is retired: Compose is part of Docker now, so it's `docker compose up -d`."),
    (("javascript",), "How do I install only the production dependencies with npm?",
     "Our server image ends up with all the test tools in node_modules. How do I leave the dev dependencies out?",
     "Install with `{cmd}` in the image; npm then skips everything in devDependencies.",
     "npm install --production", "npm install --omit=dev",
     "npm prints a warning for --production these days: use `npm install --omit=dev` instead."),
)
