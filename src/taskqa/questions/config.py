"""How questions are generated: the settings every clip record carries, so that checking, the
oracle and the audits rebuild exactly the views generation asked on."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from taskqa.causal import DependencyRules
from taskqa.programs.clips import ClipConfig


class GenerationConfig(BaseModel):
    """The settings of one generation run (seed, clips, indirect references, dependency rules)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    seed: int = 0
    clips: ClipConfig = Field(default_factory=ClipConfig)
    indirect: bool = Field(
        default=True,
        description="Also make indirect-reference variants of direct templates: objects said "
        "as 'the first / last / only thing they changed' (questions/indirect.py says why "
        "actions are not).",
    )
    obfuscation: int = Field(
        default=2,
        ge=0,
        le=2,
        description="Most objects of an action reference said as 'something' (EgoTaskQA: 2).",
    )
    spatial: bool = True
    include_visibility: bool = False

    @property
    def rules(self) -> DependencyRules:
        return DependencyRules(spatial=self.spatial, include_visibility=self.include_visibility)
