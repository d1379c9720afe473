"""Where chapter 1's main path goes (issue 35, session 31, set 32 as the development set after its measurement).
Each rule on a small source, failing without it."""

from __future__ import annotations

from conftest import traced as _path, write_files as _write

from orchestrator.authoring.project import load

# awesome_print's shape: the project reopens `Kernel` so that every object answers `ai`, and `ap` (two letters) is
# what the README calls, bare, on a value of no project type
_AWESOME = {
    "README.md": """# awesome_print

Pretty prints Ruby objects.

## Usage

```ruby
require "awesome_print"
data = [false, 42, { now: Time.now }]
ap data
```
""",
    "awesome_print.gemspec": "Gem::Specification.new { |s| s.name = 'awesome_print' }\n",
    "lib/awesome_print.rb": "require_relative 'awesome_print/kernel'\nrequire_relative 'awesome_print/inspector'\n",
    "lib/awesome_print/kernel.rb": """module Kernel
  def ai(options = {})
    inspector = AwesomePrint::Inspector.new(options)
    inspector.awesome(self)
  end

  def ap(object, options = {})
    puts object.ai(options)
    object
  end
end
""",
    "lib/awesome_print/inspector.rb": """module AwesomePrint
  class Inspector
    def initialize(options = {})
      @options = options
      @formatter = Formatter.new(self)
    end

    def awesome(object)
      @formatter.format(object)
    end
  end

  class Formatter
    def initialize(inspector)
      @inspector = inspector
    end

    def format(object)
      object.inspect.to_s
    end
  end
end
""",
}


def test_a_method_the_project_gives_every_ruby_object_is_called_bare_and_on_a_value_of_no_known_type(tmp_path):
    p = load(_write(tmp_path, _AWESOME))
    assert _path(p)[_path(p).index("|") + 1:][:4] == ["Kernel.ap", "Kernel.ai", "AwesomePrint.Inspector.awesome",
                                                      "AwesomePrint.Formatter.format"]
