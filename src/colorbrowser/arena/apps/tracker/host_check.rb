# Rack middleware of the arena's Redmine (loaded by config.ru): a request addressed to
# another name than this server (DNS rebinding from a page in any browser on the
# machine) gets 403 before Redmine sees it.
class ArenaHostCheck
  REFUSAL = "forbidden: this local server answers only requests addressed to itself\n"

  def initialize(app, port)
    @app = app
    @names = ["127.0.0.1", "localhost", "[::1]"].map { |name| "#{name}:#{port}" }
  end

  def call(env)
    return @app.call(env) if @names.include?(env["HTTP_HOST"].to_s.downcase)

    [403, {"Content-Type" => "text/plain; charset=utf-8",
           "Content-Length" => REFUSAL.bytesize.to_s}, [REFUSAL]]
  end
end
