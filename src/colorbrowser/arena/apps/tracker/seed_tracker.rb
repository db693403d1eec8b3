# Seed a Redmine 5 database from the arena's JSON payload.
#
# Usage (from the data folder, so repository paths stay relative to it):
#   bin/rails runner seed_tracker.rb PAYLOAD.json
#
# Records are created through Redmine's models, so validations, journals and the
# changeset-to-issue links are Redmine's own. Every timestamp the models stamp with
# "now" is pinned afterwards (update_columns), so two builds hold the same rows.

require "json"
require "time"

payload = JSON.parse(File.read(ARGV.fetch(0)))
PINNED = Time.parse(payload.fetch("pinned")).utc
LATEST = Time.parse(payload.fetch("latest")).utc # nothing seeded happens after this

def at(text)
  Time.parse(text).utc
end

def pin(record, stamps)
  record.update_columns(stamps.transform_values { |v| v.is_a?(String) ? at(v) : v })
end

def configure(settings)
  settings.each { |name, value| Setting.send("#{name}=", value) }
end

def make_user(data)
  user = User.find_by_login(data["login"]) || User.new
  user.login = data["login"]
  user.firstname = data["firstname"]
  user.lastname = data["lastname"]
  user.mail = data["mail"]
  user.password = data["password"]
  user.password_confirmation = data["password"]
  user.admin = data["admin"] ? true : false
  user.must_change_passwd = false
  user.status = User::STATUS_ACTIVE
  user.language = "en"
  user.save!
  user.pref.update!(no_self_notified: true, hide_mail: true, time_zone: "UTC")
  pin(user, created_on: data["created"], updated_on: data["created"], passwd_changed_on: nil)
  user.email_address.update_columns(created_on: at(data["created"]), updated_on: at(data["created"]))
  user
end

def make_project(data, users, trackers, roles)
  project = Project.new(name: data["name"], identifier: data["identifier"],
                        description: data["description"], homepage: data["homepage"],
                        is_public: true)
  project.enabled_module_names = data["modules"]
  project.trackers = trackers.values
  project.save!
  pin(project, created_on: data["created"], updated_on: data["created"])
  data["members"].each do |m|
    member = Member.new(project: project, principal: users.fetch(m["login"]))
    member.role_ids = [roles.fetch(m["role"]).id]
    member.save!
    pin(member, created_on: data["created"])
  end
  project
end

def make_versions(project, data)
  data["versions"].to_h do |v|
    version = Version.create!(project: project, name: v["name"], description: v["description"],
                              effective_date: Date.parse(v["due"]), status: "open",
                              sharing: "none")
    pin(version, created_on: v["created"], updated_on: v["created"])
    [v["name"], version]
  end
end

def make_issue(project, data, ctx)
  User.current = ctx[:users].fetch(data["author"])
  issue = Issue.new(project: project, tracker: ctx[:trackers].fetch(data["tracker"]),
                    author: User.current, subject: data["subject"],
                    description: data["description"],
                    priority: ctx[:priorities].fetch(data["priority"]),
                    status: ctx[:statuses].fetch("New"),
                    start_date: Date.parse(data["created"]))
  issue.category = ctx[:categories][data["category"]]
  issue.fixed_version = ctx[:versions][data["version"]] if data["version"]
  issue.assigned_to = ctx[:users][data["assignee"]] if data["assignee"]
  issue.save!
  raise "issue #{data['subject']} got id #{issue.id}, expected #{data['id']}" if issue.id != data["id"]
  pin(issue, created_on: data["created"], updated_on: data["created"])
  data["journals"].each do |j|
    user = ctx[:users].fetch(j["user"])
    User.current = user
    issue = Issue.find(issue.id) # init_journal keeps one journal per object
    journal = issue.init_journal(user, j["notes"])
    issue.status = ctx[:statuses].fetch(j["status"]) if j["status"]
    issue.save!
    pin(journal, created_on: j["time"])
    stamps = { updated_on: j["time"] }
    stamps[:closed_on] = j["time"] if issue.closed?
    pin(issue, stamps)
  end
  issue
end

def make_wiki(project, pages, users)
  # Enabling the wiki module already made the project's wiki.
  wiki = Wiki.find_or_create_by!(project_id: project.id)
  wiki.update!(start_page: pages.first["title"])
  pages.each do |p|
    page = WikiPage.new(wiki: wiki, title: p["title"])
    page.content = WikiContent.new(text: p["text"], author: users.fetch(p["author"]),
                                   comments: "")
    page.save!
    pin(page, created_on: p["time"])
    pin(page.content, updated_on: p["time"])
    page.content.versions.each { |v| pin(v, updated_on: p["time"]) }
  end
end

def make_news(project, items, users)
  items.each do |n|
    news = News.create!(project: project, title: n["title"], summary: n["summary"],
                        description: n["description"], author: users.fetch(n["author"]))
    pin(news, created_on: n["time"])
  end
end

def make_repository(project, data, users)
  repo = Repository::Git.new(project: project, url: data["url"], identifier: data["identifier"],
                             is_default: true, path_encoding: "UTF-8")
  repo.report_last_commit = "1"
  repo.save!
  repo.fetch_changesets
  pin(repo, created_on: data["created"])
  raise "#{data['url']}: no changesets were read" if repo.changesets.count.zero?
end

Mailer.with_deliveries(false) do
  configure(payload["settings"])
  users = payload["users"].to_h { |u| [u["login"], make_user(u)] }
  trackers = Tracker.all.to_h { |t| [t.name, t] }
  roles = Role.givable.to_h { |r| [r.name, r] }
  ctx = { users: users, trackers: trackers,
          statuses: IssueStatus.all.to_h { |s| [s.name, s] },
          priorities: IssuePriority.all.to_h { |p| [p.name, p] } }
  payload["projects"].each do |data|
    project = make_project(data, users, trackers, roles)
    ctx[:categories] = data["categories"].to_h do |c|
      [c["name"], IssueCategory.create!(project: project, name: c["name"],
                                        assigned_to: users[c["assignee"]])]
    end
    ctx[:versions] = make_versions(project, data)
    data["issues"].each { |i| make_issue(project, i, ctx) }
    data["versions"].each do |v|
      next unless v["closed"]

      version = ctx[:versions].fetch(v["name"])
      version.update!(status: "closed")
      pin(version, updated_on: v["closed"])
    end
    make_wiki(project, data["wiki"], users)
    make_news(project, data["news"], users)
    make_repository(project, data["repository"], users)
  end
  # Stamped with the build time: settings, and the built-in users the migration made.
  Setting.update_all(updated_on: PINNED)
  Principal.where("created_on > ?", LATEST).update_all(created_on: PINNED, updated_on: PINNED)
end
